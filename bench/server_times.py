"""The server's side of each request's latency, for ``lsp_load.py`` (issue 15).

The server appends a line per answered request to the file named by
``REKS_REQUEST_TIMES`` (``lsp_server.lsp.request_times``): when its bytes were read,
when the message loop handled it, when the answer was written, and the CPU time the
server used meanwhile. Joined with the client's send and receive times (the same
monotonic clock), a client latency splits into:

- ``to read``: sent until the server's reader had the bytes (the pipe, the reader thread
  waiting for a CPU or for the interpreter lock);
- ``to loop``: read until the message loop handled it (the loop busy, or waiting for the
  lock held by another thread);
- ``in server``: handled until answered (the request's own work and its waits);
- ``to client``: answered until the client saw it (the client's own reading).

Next to them: the CPU the server's process and its loop's thread used meanwhile, and the
time its threads spent runnable but waiting for a CPU (``cpu wait``, summed over threads).
A request whose wall time is much more than the server's CPU and whose ``cpu wait`` is
large waited for a CPU (a loaded machine), not for a block in the server.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV = "REKS_REQUEST_TIMES"


@dataclass
class Sent:
    """A request as the client saw it (``time.perf_counter()`` seconds)."""

    kind: str
    sent: float
    done: float
    opening: bool


def read_times(path: Path) -> dict[str, dict[str, Any]]:
    """The server's records by request id (none when the server did not write them: a
    checkout of a version without them)."""
    if not path.exists():
        return {}
    records = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        records[str(record["id"])] = record
    return records


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f}"


def _split(sent: Sent, record: dict[str, Any]) -> dict[str, float]:
    return {
        "client": sent.done - sent.sent,
        "to read": record["received"] - sent.sent,
        "to loop": record["read"] - record["received"],
        "in server": record["answered"] - record["read"],
        "to client": sent.done - record["answered"],
        "server cpu": record["cpu"],
        "loop cpu": record["loop_cpu"],
        "cpu wait": record.get("cpu_wait", 0.0),
    }


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report_split(requests: dict[str, Sent], records: dict[str, dict[str, Any]], kind: str) -> None:
    """Percentiles of each part of ``kind``'s latency, and the opening burst request by
    request."""
    splits = [
        (sent, _split(sent, records[msg_id]))
        for msg_id, sent in requests.items()
        if sent.kind == kind and msg_id in records
    ]
    if not splits:
        print(f"  server-side times of {kind}: none recorded (set {ENV})")
        return
    parts = list(splits[0][1])
    print(
        f"  {kind} latency split (ms; server cpu, loop cpu: CPU used meanwhile; cpu wait:"
        " the server's threads runnable but without a CPU meanwhile):"
    )
    print("    " + " " * 6 + "".join(f"{part:>11s}" for part in parts))
    for name, q in (("p50", 0.5), ("p99", 0.99), ("max", 1.0)):
        row = [_percentile([split[part] for _, split in splits], q) for part in parts]
        print(f"    {name:6s}" + "".join(f"    {_ms(value)}" for value in row))
    opening = sorted((sent.sent, split) for sent, split in splits if sent.opening)
    if opening:
        first = opening[0][0]
        print(f"  the opening burst, {kind} by {kind} (sent at, ms after the first):")
        for at, split in opening[:12]:
            print(f"    +{_ms(at - first)}" + "".join(f"    {_ms(split[part])}" for part in parts))
