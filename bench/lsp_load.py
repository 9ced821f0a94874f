"""Benchmark: reks under a bounded mixed load, and on oversized buffers (issue 15).

Input: a copy of the installed Python's standard library (without its test suites) plus
one generated module of 50,000 lines with thousands of uses of one function.

Load: ``--requests`` (default 2,000) requests and notifications in a fixed pseudo-random
order (``--seed``), at most ``--window`` requests outstanding: ``didChange`` of the big
module (a line appended, the version counted up), ``codeAction`` at random places of the
big module and of ``textwrap.py``, ``rename`` of names in small modules and now and then of
the function used thousands of times in the big one, and renames cancelled right after
they are sent (``$/cancelRequest``). Printed: codeAction latency percentiles overall and
while a rename is outstanding (the goal: p99 under 50 ms), rename latencies, the server's
peak RSS, and how many requests were left without an answer (the goal: none). Each code
action's latency is split into its parts by the server's own times (``server_times``:
waiting to be read, waiting for the loop, in the server, waiting for the client, and the
CPU the server used meanwhile), which tells a block in the server from a wait for a CPU on
a loaded machine; the opening burst is listed request by request. The client's converters
are made before the load (``warm_client``), so that its own first-use cost is not counted.

Oversized buffers (issue 15 item 2): a fresh server per size gets ``didOpen`` of a buffer
of 5 MB, then 50 MB, and one ``codeAction``; printed: the time to the answer, what it was,
and the server's peak RSS.

Each load runs twice in the same run: rope in the server's worker processes (the default)
and, as the peer, rope on a thread of the server's own process (``REKS_ROPE_IN_PROCESS=1``).

    nice python bench/lsp_load.py [--requests 2000] [--window 8] [--big-lines 50000]
                                  [--engines process,thread]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).parent))
from refactor_codeactions import Session, compile_reks, copy_stdlib
from server_times import ENV as TIMES_ENV
from server_times import Sent, read_times, report_split

SERVER = [sys.executable, "-m", "lsp_server"]
ENGINES = {
    "process": SERVER,
    "thread": ["env", "REKS_ROPE_IN_PROCESS=1", *SERVER],
}
"""Where the server runs rope: worker processes (the default) or a thread of its own
process (the peer every figure is compared with, measured in the same run)."""
SLOWEST_SHOWN = 5
OPENING_SECONDS = 1.0
"""Code actions sent this long after the documents opened are the opening burst: an
editor asks for them as it opens its documents, while the server's workers start."""
ANSWER_DEADLINE = 600.0
"""Seconds a request may stay unanswered after the last one was sent."""


def write_big_module(root: Path, lines: int, uses: int) -> Path:
    """A module of ``lines`` lines whose function ``target`` is called ``uses`` times."""
    out = ["def target(x):", "    return x", ""]
    filler = max(1, (lines - 3) // uses)
    for i in range(uses):
        out.append(f"v{i} = target({i})")
        out.extend(f"w{i}_{j} = {j}" for j in range(filler - 1))
    path = root / "generated_big.py"
    path.write_text("\n".join(out) + "\n")
    return path


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident set (VmHWM), in MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def children_peak_rss_mb(pid: int) -> float:
    """The summed peak RSS of the process's children (the rope workers), in MB."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    return sum(peak_rss_mb(int(child)) or 0.0 for child in children)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Load:
    """Latencies by kind (seconds), and the requests still in flight."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    during_rename: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    reasons: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(kind, first line of the server's answer) of each error that was not a cancellation."""
    pending: set[asyncio.Future[Any]] = field(default_factory=set)
    renames_running: int = 0
    slowest: list[tuple[float, str]] = field(default_factory=list)
    """(latency, what was going on when it was sent) of each code action."""
    opening: list[float] = field(default_factory=list)
    """Latencies of the code actions sent in the first ``OPENING_SECONDS``."""
    requests: dict[str, Sent] = field(default_factory=dict)
    """Every answered request by id, to join with the server's own times."""


class Driver:
    """Sends the mixed load to one session."""

    def __init__(self, session: Session, big: Path, small: list[Path], seed: int) -> None:
        self.session = session
        self.protocol = session.client.protocol
        self.big = big
        self.big_text = big.read_text()
        self.big_lines = self.big_text.count("\n")
        self.version = 1
        self.small = small
        self.texts = {p: p.read_text() for p in small}
        self.rnd = random.Random(seed)
        self.load = Load()
        self.sent = 0
        self.began = time.perf_counter()
        self.changes_since_action = 0

    def _request(
        self, kind: str, method: str, params: Any, cancel: bool = False, where: str = ""
    ) -> None:
        load = self.load
        msg_id = str(uuid.uuid4())
        context = (
            f"#{self.sent} {where} at {time.perf_counter() - self.began:.2f} s,"
            f" {load.renames_running} renames out, {self.changes_since_action} didChange"
            " of the big module since the last code action on it"
        )
        self.sent += 1
        is_rename = method == types.TEXT_DOCUMENT_RENAME
        sent = time.perf_counter()
        opening = sent - self.began < OPENING_SECONDS
        during_rename = load.renames_running > 0
        future = asyncio.wrap_future(self.protocol.send_request(method, params, msg_id=msg_id))
        if is_rename:
            load.renames_running += 1

        def done(f: asyncio.Future[Any]) -> None:
            took = time.perf_counter() - sent
            load.pending.discard(f)
            if is_rename:
                load.renames_running -= 1
            if f.cancelled() or f.exception() is not None:
                load.errors[kind] = load.errors.get(kind, 0) + 1
                if not cancel and not f.cancelled():
                    load.reasons[kind, str(f.exception()).splitlines()[0][:160]] += 1
            load.latencies.setdefault(kind, []).append(took)
            load.requests[msg_id] = Sent(kind, sent, sent + took, opening)
            if kind == "codeAction" and (during_rename or load.renames_running > 0):
                load.during_rename.append(took)
            if kind == "codeAction":
                load.slowest.append((took, context))
                if opening:
                    load.opening.append(took)

        future.add_done_callback(done)
        load.pending.add(future)
        if cancel:
            self.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))

    def did_change(self) -> None:
        self.changes_since_action += 1
        self.version += 1
        line = self.big_lines
        self.big_lines += 1
        self.session.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=self.big.as_uri(), version=self.version
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(types.Position(line, 0), types.Position(line, 0)),
                        text=f"z{self.version} = {self.version}\n",
                    )
                ],
            )
        )

    def code_action(self) -> None:
        if self.rnd.random() < 0.5:
            uri, line = self.big.as_uri(), self.rnd.randrange(self.big_lines)
            where = f"big module line {line}"
        else:
            path = self.rnd.choice(self.small)
            uri, line = path.as_uri(), self.rnd.randrange(self.texts[path].count("\n"))
            where = f"{path.name} line {line}"
        at = types.Position(line, self.rnd.randrange(6))
        params = types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(at, at),
            context=types.CodeActionContext(diagnostics=[]),
        )
        self._request("codeAction", types.TEXT_DOCUMENT_CODE_ACTION, params, where=where)
        if uri == self.big.as_uri():
            self.changes_since_action = 0

    def rename(self, cancel: bool, big: bool = False) -> None:
        if big:
            uri, at, kind = self.big.as_uri(), types.Position(0, 5), "rename big"
        else:
            path = self.rnd.choice(self.small)
            text = self.texts[path]
            offset = text.index("def ") + 5
            line = text.count("\n", 0, offset)
            at = types.Position(line, offset - text.rfind("\n", 0, offset) - 1)
            uri, kind = path.as_uri(), "rename"
        params = types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=at,
            new_name=f"renamed_{self.rnd.randrange(10**6)}",
        )
        self._request(
            "rename cancelled" if cancel else kind, types.TEXT_DOCUMENT_RENAME, params, cancel
        )

    async def run(self, requests: int, window: int, big_renames: int) -> None:
        step = requests // (big_renames + 1)
        big_at = {step * (i + 1) for i in range(big_renames)}
        for index in range(requests):
            while len(self.load.pending) >= window:
                await asyncio.sleep(0.001)
            roll = self.rnd.random()
            if index in big_at:
                self.rename(cancel=False, big=True)
            elif roll < 0.25:
                self.did_change()
            elif roll < 0.85:
                self.code_action()
            elif roll < 0.95:
                self.rename(cancel=False)
            else:
                self.rename(cancel=True)
            await asyncio.sleep(0)
            if (index + 1) % max(1, requests // 10) == 0:  # a line per tenth, even to a file
                answered = sum(len(v) for v in self.load.latencies.values())
                took = time.perf_counter() - self.began
                print(
                    f"  sent {index + 1}/{requests}, {answered} answered, {took:.0f} s", flush=True
                )
        deadline = time.monotonic() + ANSWER_DEADLINE
        while self.load.pending and time.monotonic() < deadline:
            await asyncio.sleep(0.05)


def warm_client(protocol: Any) -> None:
    """Make the client's converters before the load, as the server makes its own in
    ``initialize``: a pygls client generates the converter of each kind of message the
    first time it writes or reads one, and in the opening burst that counted up to 50 ms
    of the client's own time into each of the first code actions' latency, for every
    server alike."""
    uri = "file:///warm-up.py"
    at = types.Position(0, 0)
    span = types.Range(at, at)
    document = types.TextDocumentIdentifier(uri=uri)
    sent = [
        (
            types.TEXT_DOCUMENT_CODE_ACTION,
            types.CodeActionParams(document, span, types.CodeActionContext(diagnostics=[])),
        ),
        (types.TEXT_DOCUMENT_RENAME, types.RenameParams(document, at, "n")),
        (
            types.TEXT_DOCUMENT_DID_CHANGE,
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                [types.TextDocumentContentChangePartial(range=span, text="x")],
            ),
        ),
        (types.CANCEL_REQUEST, types.CancelParams(id="warm")),
    ]
    raw_span = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    edit = {"range": raw_span, "newText": "n"}
    answers = [
        (
            types.TEXT_DOCUMENT_CODE_ACTION,
            [
                {"title": "t", "kind": "refactor.extract", "data": {"uri": uri}},
                {"title": "t", "command": {"title": "t", "command": "c", "arguments": [{}]}},
            ],
        ),
        (
            types.TEXT_DOCUMENT_RENAME,
            {
                "documentChanges": [
                    {
                        "textDocument": {"uri": uri, "version": None},
                        "edits": [edit, {**edit, "annotationId": "reks"}],
                    }
                ],
                "changeAnnotations": {"reks": {"label": "l", "needsConfirmation": True}},
            },
        ),
        (types.TEXT_DOCUMENT_RENAME, {"changes": {uri: [edit]}}),
    ]
    for _ in range(2):  # cattrs drops its cache when it makes a list's converter: twice
        for method, params in sent:
            kind = protocol.get_message_type(method)
            fields = {} if types.METHOD_TO_TYPES[method][1] is None else {"id": "warm"}
            message = kind(method=method, params=params, jsonrpc="2.0", **fields)
            json.dumps(message, default=protocol._serialize_message)
        for method, result in answers:
            protocol._result_types["warm"] = protocol.get_result_type(method)
            protocol.structure_message({"jsonrpc": "2.0", "id": "warm", "result": result})
        error = {"code": -32800, "message": "cancelled"}
        protocol.structure_message({"jsonrpc": "2.0", "id": "warm", "error": error})


def report_load(load: Load, pid: int, seconds: float, times: Path) -> None:
    print(f"\nmixed load: {seconds:.1f} s")
    for kind, values in sorted(load.latencies.items()):
        print(
            f"  {kind:17s} n={len(values):5d}  p50 {percentile(values, 0.5) * 1000:8.1f} ms"
            f"  p99 {percentile(values, 0.99) * 1000:8.1f} ms  max {max(values) * 1000:8.1f} ms"
            f"  errors {load.errors.get(kind, 0)}"
        )
    if load.during_rename:
        values = load.during_rename
        print(
            f"  codeAction while a rename runs: n={len(values)}"
            f"  p50 {percentile(values, 0.5) * 1000:.1f} ms"
            f"  p99 {percentile(values, 0.99) * 1000:.1f} ms  (goal: p99 < 50 ms)"
        )
    if load.opening:
        values = load.opening
        print(
            f"  codeAction sent in the first {OPENING_SECONDS:.0f} s: n={len(values)}"
            f"  p50 {percentile(values, 0.5) * 1000:.1f} ms  max {max(values) * 1000:.1f} ms"
        )
    print(f"  unanswered: {len(load.pending)} (goal: 0)")
    for (kind, reason), count in load.reasons.most_common():
        print(f"  {kind} error x{count}: {reason}")
    report_split(load.requests, read_times(times), "codeAction")
    print("  slowest code actions (what was going on when each was sent):")
    for took, context in sorted(load.slowest, reverse=True)[:SLOWEST_SHOWN]:
        print(f"    {took * 1000:8.1f} ms  {context}")
    print(
        f"  server peak RSS: {peak_rss_mb(pid) or float('nan'):.0f} MB"
        f" (+ {children_peak_rss_mb(pid):.0f} MB in its rope workers)"
    )


async def bench_load(root: Path, args: argparse.Namespace, engine: str) -> None:
    big = write_big_module(root, args.big_lines, args.big_uses)
    small = [root / name for name in ("textwrap.py", "shlex.py", "fnmatch.py", "colorsys.py")]
    times = root.parent / f"request-times-{engine}.jsonl"
    timed = [] if args.no_server_times else ["env", f"{TIMES_ENV}={times}"]
    started = time.perf_counter()
    session = Session([*timed, *ENGINES[engine]], root)
    await session.start()
    print(f"\n== {engine} ==")
    print(f"initialize answered {time.perf_counter() - started:.2f} s after process start")
    try:
        warm_client(session.client.protocol)
        for path in [big, *small]:
            session.open(path)
        driver = Driver(session, big, small, args.seed)
        began = driver.began = time.perf_counter()
        await driver.run(args.requests, args.window, args.big_renames)
        pid = session.client._server.pid  # type: ignore[union-attr]
        report_load(driver.load, pid, time.perf_counter() - began, times)
    finally:
        await session.stop()


async def bench_buffer(root: Path, megabytes: int) -> None:
    """A fresh server, one buffer of ``megabytes`` MB, one codeAction at its start."""
    path = root / f"buffer_{megabytes}mb.py"
    path.write_text("")
    text = "x = 1\n" * (megabytes * 1_000_000 // 6)
    session = Session(SERVER, root)
    await session.start()
    try:
        session.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=path.as_uri(), language_id="python", version=1, text=text
                )
            )
        )
        at = types.Position(0, 0)
        began = time.perf_counter()
        answer = await asyncio.wait_for(
            session.client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
                    range=types.Range(at, at),
                    context=types.CodeActionContext(diagnostics=[]),
                )
            ),
            ANSWER_DEADLINE,
        )
        took = time.perf_counter() - began
        pid = session.client._server.pid  # type: ignore[union-attr]
        rss = peak_rss_mb(pid) or float("nan")
        print(
            f"buffer {megabytes:3d} MB: codeAction answered in {took * 1000:.0f} ms with"
            f" {len(answer or [])} actions; server peak RSS {rss:.0f} MB"
        )
    finally:
        await session.stop()
        path.unlink()


async def main_async(args: argparse.Namespace) -> None:
    compile_reks()
    with tempfile.TemporaryDirectory(prefix="reks-load-") as tmp:
        root = copy_stdlib(Path(tmp), full=False)
        files = sum(1 for _ in root.rglob("*.py"))
        print(f"input: {files} files of {root}, plus a {args.big_lines:,}-line module")
        if not args.skip_buffers:
            for megabytes in (5, 50):
                await bench_buffer(root, megabytes)
        for engine in args.engines.split(","):
            await bench_load(root, args, engine)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--window", type=int, default=8, help="requests outstanding at most")
    parser.add_argument("--big-lines", type=int, default=50_000)
    parser.add_argument("--big-uses", type=int, default=2_000)
    parser.add_argument("--big-renames", type=int, default=2, help="renames in the big module")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--skip-buffers", action="store_true")
    parser.add_argument(
        "--no-server-times",
        action="store_true",
        help="the server records no times of its own (no split; without their cost)",
    )
    parser.add_argument(
        "--engines",
        default="process,thread",
        help=f"comma-separated, of {', '.join(ENGINES)} (and `checkout` with --checkout)",
    )
    parser.add_argument(
        "--checkout",
        help="a directory holding another version's lsp_server package (e.g. from `git"
        " archive main lsp_server`): the engine `checkout` runs that server, a peer",
    )
    args = parser.parse_args()
    if args.checkout:
        ENGINES["checkout"] = ["env", f"PYTHONPATH={Path(args.checkout).resolve()}", *SERVER]
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
