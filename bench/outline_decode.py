"""Taking a long module's outline from the outline worker: the CPU time the server's thread
holds the interpreter lock to decode the reply (frame JSON, then ``outline_from_wire``),
against the peer form of the same outline as plain JSON lists of numbers and names, in the
same run (issue 15: a code action waits for as long as the decoding holds the lock).

    python bench/outline_decode.py [--lines 30000] [--uses 1500] [--repeat 15]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsp_server.refactor.outline import Outline, outline_from_wire, outline_of, outline_to_wire
from lsp_server.sandbox.wire import encode

sys.path.insert(0, str(Path(__file__).parent))
from lsp_load import write_big_module

OFFSETS = ("starts", "ends")
NAMES = ("stored", "functions", "classes")


def plain_lists(outline: Outline) -> dict[str, Any]:
    """The peer: every offset and name as a JSON value of its own."""
    offsets = {name: list(getattr(outline, name)) for name in OFFSETS}
    return {**offsets, **{name: sorted(getattr(outline.facts, name)) for name in NAMES}}


def plain_from_lists(data: dict[str, Any]) -> tuple[Any, ...]:
    offsets = tuple(tuple(data[name]) for name in OFFSETS)
    return offsets + tuple(frozenset(data[name]) for name in NAMES)


def seconds(work: Any) -> float:
    """CPU seconds of this thread: on a loaded machine a wall-clock time counts the
    slices the scheduler gave other processes, and the lock is held that long as well
    but for a reason the decoding does not control."""
    start = time.thread_time()
    work()
    return time.thread_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=30_000)
    parser.add_argument("--uses", type=int, default=1_500)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        text = write_big_module(Path(tmp), args.lines, args.uses).read_text()
    outline = outline_of(text)
    assert outline is not None
    ours = encode({"id": 1, "outline": outline_to_wire(outline)})[8:]
    peer = encode({"id": 1, "outline": plain_lists(outline)})[8:]
    assert outline_from_wire(json.loads(ours)["outline"]) == outline
    ours_times, peer_times = [], []
    for _ in range(args.repeat):  # interleaved: the load changes alike for both
        ours_times.append(seconds(lambda: outline_from_wire(json.loads(ours)["outline"])))
        peer_times.append(seconds(lambda: plain_from_lists(json.loads(peer)["outline"])))
    ours_times.sort()
    peer_times.sort()
    middle = len(ours_times) // 2
    print(
        f"{len(outline.starts)} top-level statements, {len(outline.facts.stored)} names:"
        f" reply {len(ours):,} bytes (plain lists {len(peer):,})"
    )
    for label, index in (("median", middle), ("slowest", -1)):
        ours_ms, peer_ms = ours_times[index] * 1000, peer_times[index] * 1000
        print(
            f"  {label}: ours {ours_ms:.1f} ms, plain JSON lists {peer_ms:.1f} ms"
            f" (ours / plain = {ours_ms / peer_ms:.2f})"
        )


if __name__ == "__main__":
    main()
