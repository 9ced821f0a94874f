"""The warm worker: a pytest session that collects the project's tests, runs none of them
itself, and forks one child per request (the observation run, or one transformation).

Started by ``pool.WorkerPool`` as ``python -m lsp_server.extreme.worker ROOT [PYTEST ARGS]``.
Protocol: one JSON object per line on the original stdin/stdout (duplicated before pytest
starts, which is then pointed at /dev/null so test output cannot corrupt it).

Why fork from a parent that never ran a test: a parent that ran the suite leaks warmed
caches (memoized results, imported lazy state) into its children, so a transformation can
look undetected only because the code it replaced was never called again. Each child
starts from the collected-but-unrun state, so no undetected result needs a re-check.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest
from _pytest.runner import runtestprotocol

from lsp_server.extreme import code_swap as swapping

OBSERVE_TIMEOUT = 3600.0


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl: Callable[..., int] = ctypes.CDLL(None).prctl
        return prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()  # loaded once: doing it in every child cost ~2.5 ms per fork


def _die_with_parent() -> None:
    """Linux: the child gets SIGKILL when the worker dies, so no loop outlives reks."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _short_failure(*args: object, **kwargs: object) -> str:
    # Rendering a failure report (source, locals, reprs) dominated the cost of a detected
    # transformation; only the fact that a test failed matters here.
    return "failed"


class Child:
    """Outcome of one forked child."""

    def __init__(self, status: str, payload: dict[str, Any] | None, detail: str = "") -> None:
        self.status = status  # "ok" | "timeout" | "crash"
        self.payload = payload
        self.detail = detail


class WorkerPlugin:
    def __init__(self, root: str, requests: IO[bytes], replies: IO[str]) -> None:
        self.root = root
        self.requests = requests
        self.replies = replies
        self.items: dict[str, pytest.Item] = {}
        self.served = False
        self.child_pid: int | None = None
        self.index: swapping.FunctionIndex = {}
        self.defs: dict[str, dict[tuple[int, str], swapping.FuncDef]] = {}
        self.reported_failure = False
        self.exiting: set[int] = set()

    def send(self, message: dict[str, Any]) -> None:
        self.replies.write(json.dumps(message) + "\n")
        self.replies.flush()

    # -- pytest hooks -----------------------------------------------------------------

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Subtests report their failures through this hook only, not in the reports
        # ``runtestprotocol`` returns; a failed subtest is a failed test.
        if report.failed:
            self.reported_failure = True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        self.served = True
        self.items = {item.nodeid: item for item in session.items}
        signal.signal(signal.SIGTERM, self._terminate)
        self.send(
            {
                "op": "ready",
                "pid": os.getpid(),
                "tests": len(self.items),
                "nodeids": list(self.items),
                "collection_errors": session.testsfailed,
            }
        )
        self.serve()
        return True

    def _terminate(self, signum: int, frame: object) -> None:
        pids = {*self.exiting, *([self.child_pid] if self.child_pid else [])}
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        os._exit(1)

    # -- requests ---------------------------------------------------------------------

    def serve(self) -> None:
        for raw in self.requests:
            request = json.loads(raw)
            op = request.get("op")
            if op == "quit":
                break
            try:
                if op == "prepare":
                    self.prepare(request["files"])
                    self.send({"op": "prepared"})
                elif op == "observe":
                    index, count = request.get("shard", (0, 1))
                    subset = request.get("tests")
                    self.send(self.observe(int(index), int(count), subset))
                elif op == "run":
                    self.send(self.run(request))
                else:
                    self.send({"op": "error", "message": f"unknown request {op!r}"})
            except Exception:
                self.send({"op": "error", "message": traceback.format_exc()})
        for pid in self.exiting:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)

    def prepare(self, files: list[str]) -> None:
        """Import target modules the tests did not import at collection time (so their
        functions exist before a child swaps them), then index live functions."""
        loaded = {
            os.path.realpath(getattr(m, "__file__", "") or "") for m in list(sys.modules.values())
        }
        for rel in files:
            path = os.path.realpath(os.path.join(self.root, rel))
            if path not in loaded:
                _import_path(path)
            with contextlib.suppress(OSError, UnicodeDecodeError, SyntaxError, ValueError):
                source = Path(path).read_text(encoding="utf-8")
                self.defs[path] = swapping.function_defs(source, path)
        self.index = swapping.index_functions(self.root)
        # Keep the collector from touching (and so copying) every inherited object in each
        # child: copy-on-write pages stay shared.
        gc.collect()
        gc.freeze()

    def observe(
        self, index: int = 0, count: int = 1, subset: list[str] | None = None
    ) -> dict[str, Any]:
        """Run shard ``index`` of ``count`` (a contiguous slice, so module and class
        fixtures stay together) of the collected tests (or of ``subset``, kept in
        collection order), recording what they execute."""
        wanted = None if subset is None else set(subset)
        nodeids = [n for n in self.items if wanted is None or n in wanted]
        chunk = nodeids[len(nodeids) * index // count : len(nodeids) * (index + 1) // count]
        child = self._fork(lambda: self._observe_child(chunk), OBSERVE_TIMEOUT)
        if child.status != "ok" or child.payload is None:
            return {"op": "error", "message": f"observation run {child.status}: {child.detail}"}
        return {"op": "observed", **child.payload}

    def _observe_child(self, nodeids: list[str]) -> dict[str, Any]:
        from lsp_server.extreme.recorder import Recorder

        recorder = Recorder(self.root)
        tests: dict[str, dict[str, Any]] = {}
        recorder.start()
        try:
            for i, nodeid in enumerate(nodeids):
                item = self.items[nodeid]
                nxt = self.items[nodeids[i + 1]] if i + 1 < len(nodeids) else None
                recorder.begin_test()
                start = time.perf_counter()
                failed = self._run_item(item, nxt)
                duration = time.perf_counter() - start
                units = recorder.end_test()
                tests[nodeid] = {
                    "outcome": "failed" if failed else "passed",
                    "duration": duration,
                    "units": sorted(units),
                }
        finally:
            recorder.stop()
        returns = {unit: sorted(kinds) for unit, kinds in recorder.returns.items()}
        # The first test of a fresh child also pays for session and module fixtures; a
        # transformation's child pays that too, whichever test it starts with.
        setup = tests[nodeids[0]]["duration"] if nodeids else 0.0
        return {"tests": tests, "returns": returns, "setup": setup}

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        started = time.perf_counter()
        child = self._fork(lambda: self._run_child(request), float(request["timeout"]))
        reply: dict[str, Any] = {"op": "result", "id": request["id"]}
        if child.status == "timeout":
            reply.update(verdict="timeout", reason=child.detail)
        elif child.status == "crash" or child.payload is None:
            reply.update(verdict="detected", reason=f"test process crashed: {child.detail}")
        else:
            reply.update(child.payload)
        reply["duration"] = time.perf_counter() - started
        return reply

    def _run_child(self, request: dict[str, Any]) -> dict[str, Any]:
        path = os.path.realpath(os.path.join(self.root, request["path"]))
        name = request["function"].rsplit(".", 1)[-1]
        try:
            node = self.defs.get(path, {}).get((request["line"], name))
            if node is None:
                raise swapping.SwapError(f"no def of {name} at line {request['line']} of {path}")
            targets = swapping.find_targets(
                self.index, path, name, request["first_line"], request["line"]
            )
            swapping.swap_body(targets, node, request["body"])
        except (swapping.SwapError, SyntaxError, OSError) as exc:
            return {"verdict": "error", "reason": str(exc), "tests": []}
        ran: list[str] = []
        tests: list[str] = request["tests"]
        for i, nodeid in enumerate(tests):
            item = self.items.get(nodeid)
            if item is None:
                continue
            nxt = self.items.get(tests[i + 1]) if i + 1 < len(tests) else None
            ran.append(nodeid)
            if self._run_item(item, nxt):
                return {"verdict": "detected", "tests": ran, "detected_by": nodeid}
        return {"verdict": "undetected", "tests": ran}

    def _run_item(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool:
        """Run one test (setup, call, teardown) without reporting; True when it failed."""
        item.__dict__["repr_failure"] = _short_failure
        item.__dict__["_repr_failure_py"] = _short_failure
        self.reported_failure = False
        reports = runtestprotocol(item, log=False, nextitem=nextitem)
        return self.reported_failure or any(report.failed for report in reports)

    # -- forking ----------------------------------------------------------------------

    def _reap(self) -> None:
        """Collect children that sent their result and were left to exit on their own."""
        for pid in list(self.exiting):
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG)[0] == 0:
                    continue
            self.exiting.discard(pid)

    def _fork(self, work: Callable[[], dict[str, Any]], timeout: float) -> Child:
        self._reap()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # child
            os.close(read_end)
            status = 0
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                _die_with_parent()
                try:
                    payload = work()
                except (KeyboardInterrupt, SystemExit, pytest.exit.Exception) as exc:
                    # Raised through pytest by the transformed code: the test run stopped.
                    payload = {"verdict": "detected", "reason": f"{type(exc).__name__}: {exc}"}
                view = memoryview(json.dumps(payload).encode() + b"\n")
                while view:
                    written = os.write(write_end, view)
                    view = view[written:]
            except BaseException:
                status = 70
                traceback.print_exc()
            finally:
                os._exit(status)
        os.close(write_end)
        self.child_pid = pid
        chunks: list[bytes] = []
        deadline = time.monotonic() + timeout
        timed_out = complete = False
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                ready, _, _ = select.select([read_end], [], [], left)
                if not ready:
                    continue
                chunk = os.read(read_end, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
                if chunk.endswith(b"\n"):
                    complete = True
                    break
        finally:
            os.close(read_end)
        self.child_pid = None
        if complete:
            # The verdict is known: let the child tear itself down while the next one
            # starts (its exit costs milliseconds on a large heap); reaped later.
            self.exiting.add(pid)
            try:
                return Child("ok", json.loads(b"".join(chunks)))
            except ValueError:
                return Child("crash", None, "unreadable result")
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        _, wait_status = os.waitpid(pid, 0)
        if timed_out:
            return Child("timeout", None, f"no result after {timeout:.2f} s")
        if os.WIFSIGNALED(wait_status):
            sig = os.WTERMSIG(wait_status)
            return Child("crash", None, f"killed by {signal.Signals(sig).name}")
        return Child("crash", None, f"exit status {os.WEXITSTATUS(wait_status)}")


def _import_path(path: str) -> None:
    """Import the module stored at ``path`` by the name a ``sys.path`` entry gives it."""
    import importlib

    best = ""
    for entry in sys.path:
        base = os.path.realpath(entry or os.getcwd()) + os.sep
        if path.startswith(base) and len(base) > len(best):
            best = base
    if not best:
        return
    rel = path[len(best) : -len(".py")].replace(os.sep, ".")
    if rel.endswith(".__init__"):
        rel = rel[: -len(".__init__")]
    # A module that fails to import simply has no live functions to transform.
    with contextlib.suppress(BaseException):
        importlib.import_module(rel)


def main(argv: list[str]) -> int:
    root = os.path.realpath(argv[0])
    os.chdir(root)
    # The protocol keeps private copies of stdin/stdout; the real fds 0 and 1 then point at
    # /dev/null so tests that print or read cannot disturb it.
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    plugin = WorkerPlugin(root, requests, replies)
    args = [
        "-p",
        "no:cacheprovider",
        "-p",
        "no:reks",
        "-p",
        "no:xdist",
        "-p",
        "no:randomly",
        "--capture=no",
        "-q",
        "-o",
        "addopts=",
        "--rootdir",
        root,
        *argv[1:],
    ]
    code = pytest.main(args, plugins=[plugin])
    if not plugin.served:
        plugin.send(
            {
                "op": "error",
                "message": f"pytest could not collect the tests of {root} (exit status {code})",
            }
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
