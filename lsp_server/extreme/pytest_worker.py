"""The warm pytest worker: a pytest session that collects the project's tests, runs none of
them itself, and forks a child per request (the observation run, a transformation: see
``kept_child`` for the one that runs the next ones while its tests leave no state behind).

Started by ``pool.WorkerPool`` as ``python -m lsp_server.extreme.pytest_worker ROOT [PYTEST
ARGS]`` in a ``lsp_server.sandbox`` process: requests and replies are frames on the sandbox
channel (end of input means quit), so test output cannot corrupt them; forks go through the
sandbox's ``Forker``.

Why fork from a parent that never ran a test: a parent that ran the suite leaks warmed
caches (memoized results, imported lazy state) into its children, so a transformation can
look undetected only because the code it replaced was never called again. Each child
starts from the collected-but-unrun state, so no undetected result needs a re-check.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from lsp_server.extreme import code_swap as swapping
from lsp_server.extreme import project_options
from lsp_server.extreme.assert_mode import assert_mode
from lsp_server.extreme.bytecode import use_private_cache
from lsp_server.extreme.failure_note import FailureNote, short_failure
from lsp_server.extreme.item_locations import locate
from lsp_server.extreme.kept_child import KeptChild
from lsp_server.extreme.library_caches import fill_library_caches
from lsp_server.extreme.pool import SCOPE_VARIABLE
from lsp_server.extreme.project_writes import ProjectWrites, noting_writes
from lsp_server.extreme.real_paths import real_path
from lsp_server.extreme.request_table import RequestTable
from lsp_server.extreme.session_writes import SessionWrites
from lsp_server.extreme.spare_wait import (
    SessionImports,
    session_imports,
    wait_before_pytest,
    wait_for_scope,
)
from lsp_server.extreme.transform_run import (
    at_import,
    install,
    run_transformation,
    stopping_the_run,
)
from lsp_server.extreme.wanted_tests import WantedTests
from lsp_server.extreme.worker_guard import (
    Alarm,
    children,
    exit_at_once,
    kill_adopted,
    set_subreaper,
)
from lsp_server.rts.setup_clock import SetupClock
from lsp_server.rts.unit_names import MODULE
from lsp_server.sandbox import Channel, ChannelClosed, Forker, inherited_channel, inherited_siblings
from lsp_server.sandbox.forked import flush_streams

OBSERVE_SLACK = 60.0
"""Seconds the whole observation run may take beyond the sum of its tests' timeouts (for a
test that a per-test alarm cannot interrupt); the run is then killed, never waited for."""


class WorkerPlugin:
    def __init__(self, root: str, channel: Channel, siblings: list[Channel] | None = None) -> None:
        self.root = root
        self.channel = channel
        self.sibling_channels = list(siblings or [])  # for the copies forked after collecting
        self.sibling_pids: set[int] = set()
        self.is_sibling = False
        self.items: dict[str, pytest.Item] = {}
        self.served = False
        self.index: swapping.FunctionIndex = {}
        self.defs: dict[str, dict[tuple[int, str], swapping.FuncDef]] = {}
        self.failure = FailureNote()  # a plugin too: how the test being run failed
        self.forker = Forker()
        self.import_recorder: Any = None  # what ran before the first test: a swap can't undo
        self.own_children: set[int] = set()  # started by the project at import: not orphans
        self.run_log: Any = None  # ``run_log.RunLog`` once the target files are prepared
        self.setup_clock = SetupClock()  # a pytest plugin too: shared fixtures' set-up
        self.ignored: set[str] = set()  # test files not to collect (absolute paths)
        self.wanted = WantedTests()  # a plugin: the only tests to collect of some files
        self.import_time_units: list[str] = []  # functions that ran at import or collection
        self.scope: dict[str, Any] | None = None  # ``spare_wait``
        self.imports = SessionImports()  # what a spare of its pool would hold (``warm``)
        self.writes = ProjectWrites(root)  # project files a request's runs wrote
        self.session_writes = SessionWrites(root)  # and those its own session wrote
        self.compiled: swapping.Replacements | None = None  # the request's, before forks
        self.froze_heap = False  # ``prepare`` froze it (what was frozen before: see there)
        self.table = RequestTable()  # what the run requests share (``request_table``)
        self.kept = KeptChild(self.forker)  # a child that runs the next transformations too

    def send(self, message: dict[str, Any]) -> None:
        self.channel.send(message)

    # -- pytest hooks -----------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool | None:
        # The test files to leave out (``collection_scope``) come once the analysis knows
        # its functions: Python and pytest started meanwhile.
        ignored = session.config.getoption("ignore") or []
        self.imports = session_imports(self.root)
        scope = self.scope
        if scope is None and os.environ.get(SCOPE_VARIABLE):
            scope = wait_for_scope(self.channel, self.root, imported=self.imports.project)
        if scope is not None:
            ignored = [*ignored, *scope["ignore"]]
            self.wanted.want(scope.get("only", []))
        self.ignored = {os.path.abspath(p) for p in ignored}
        return None  # pytest collects

    @pytest.hookimpl(tryfirst=True)
    def pytest_ignore_collect(self, collection_path: Path) -> bool | None:
        # ``--ignore`` is pytest's own hook, so a conftest answering False for a path (as
        # boltons' does for most) would override it: the files left out are answered first.
        return True if str(collection_path) in self.ignored else None

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
                "session_imports": self.imports.project,
                "session_libraries": self.imports.libraries,
                "nodeids": list(self.items),
                "collection_errors": session.testsfailed,
            }
        )
        self.serve()
        if self.is_sibling:
            os._exit(0)  # the session's end belongs to the process that collected
        return True

    def fork_siblings(self) -> bool:
        """Fork one copy of this collected and prepared worker per sibling channel, each to
        serve its own channel; True in a copy. Forking before any test ran gives each the
        collected-but-unrun state the first one has (see the module docstring)."""
        channels, self.sibling_channels = self.sibling_channels, []
        for channel in channels:
            flush_streams()
            pid = os.fork()
            if pid == 0:
                for other in [self.channel, *channels]:
                    if other is not channel:
                        other.close()
                self.channel = channel
                self.sibling_pids, self.own_children = set(), set()
                self.is_sibling = True
                set_subreaper()  # not inherited through fork
                if self.run_log is not None:
                    self.run_log.reopen()  # its children must not write into the first's log
                return True
            self.sibling_pids.add(pid)
        for channel in channels:
            channel.close()
        return False

    def _terminate(self, signum: int, frame: object) -> None:
        self.forker.kill_all()
        kill_adopted()
        self.session_writes.put_back()  # no exit handler runs
        os._exit(1)

    # -- requests ---------------------------------------------------------------------

    def serve(self) -> None:
        while True:
            try:
                request = self.channel.receive()
            except ChannelClosed:
                break  # end of input: reks is done with this worker
            op = request.get("op")
            if op == "quit":
                break
            try:
                if op == "prepare":
                    self.send(self.prepare(request["files"]))
                elif op == "observe":
                    self.send(noting_writes(self.writes, self.observe, request))
                elif op == "run":
                    self.send(noting_writes(self.writes, self.run, request))
                elif op == "refresh":
                    self.send(self.refresh(request["files"]))
                else:
                    self.send({"op": "error", "message": f"unknown request {op!r}"})
            except Exception:
                self.send({"op": "error", "message": traceback.format_exc()})
        self.kept.retire()
        self.forker.wait_all()
        kill_adopted()

    def start_import_recording(self) -> None:
        from lsp_server.extreme.execution_recorder import Recorder

        self.import_recorder = Recorder(self.root)
        self.import_recorder.start()

    def stop_import_recording(self) -> dict[str, Any]:
        """The function units that ran at import or collection time, and their returns."""
        recorder, self.import_recorder = self.import_recorder, None
        if recorder is None:
            return {"import_time": [], "import_returns": {}}
        recorder.stop()
        self.kept.import_recorder = recorder  # what a child's run log never reports
        units = sorted(u for u in recorder.end_test() if not u.endswith("::" + MODULE))
        self.import_time_units = units
        returns = {unit: sorted(kinds) for unit, kinds in recorder.returns.items()}
        return {"import_time": units, "import_returns": returns}

    def prepare(self, files: list[str]) -> dict[str, Any]:
        """Import target modules the tests did not import at collection time (so their
        functions exist before a child swaps them), then index live functions; the reply
        names the functions that ran while importing."""
        loaded = {real_path(getattr(m, "__file__", "") or "") for m in list(sys.modules.values())}
        for rel in files:
            path = os.path.realpath(os.path.join(self.root, rel))
            if path not in loaded:
                swapping.import_path(path)
            with contextlib.suppress(OSError, UnicodeDecodeError, SyntaxError, ValueError):
                source = Path(path).read_text(encoding="utf-8")
                self.defs[path] = swapping.function_defs(source, path)
        # Frozen objects are invisible to the index: what this worker froze (a warm worker's
        # 2nd time) is unfrozen; the first time, the frozen heap is that of the reks process
        # it was forked from (``fork_start``), no project function in it (``fork_safety``).
        if self.froze_heap:
            gc.unfreeze()
        self.index = swapping.index_functions(self.root)
        imported = self.stop_import_recording()
        from lsp_server.extreme.run_log import RunLog

        self.run_log = self.run_log or RunLog(self.root)
        self.run_log.prewarm()
        self.own_children = set(children(os.getpid()))
        fill_library_caches()
        self.kept.take(self.root)
        # So the collector touches (copies) no inherited object in each child: pages shared.
        gc.collect()
        gc.freeze()
        self.froze_heap = True
        self.fork_siblings()  # the first prepare: the others start from here
        return {"op": "prepared", "pid": os.getpid(), **imported}

    def refresh(self, files: dict[str, str]) -> dict[str, Any]:
        """Follow edits of ``files`` (path -> the text the worker imported) in the live
        functions; ``ok`` false when an edit cannot be followed (start a new worker)."""
        from lsp_server.extreme.refresh import refresh_file

        self.kept.forget()  # its functions and state are no longer the worker's
        edited = 0
        for rel, old_source in files.items():
            path = os.path.realpath(os.path.join(self.root, rel))
            try:
                new_source = Path(path).read_text(encoding="utf-8")
                edited += refresh_file(self.index, path, old_source, new_source)
                if path in self.defs:
                    self.defs[path] = swapping.function_defs(new_source, path)
                if self.run_log is not None:
                    self.run_log.forget({path})
            except (swapping.SwapError, OSError, UnicodeDecodeError, SyntaxError) as exc:
                return {"op": "refreshed", "ok": False, "reason": str(exc)}
        if self.run_log is not None:
            # Parsed here once, the edited files' units are inherited by every child;
            # else each child (observation, every transformation) parses them again.
            self.run_log.prewarm()
        return {"op": "refreshed", "ok": True, "edited": edited}

    def observe(self, request: dict[str, Any]) -> dict[str, Any]:
        """Run shard ``index`` of ``count`` (a contiguous slice, so module and class
        fixtures stay together) of the collected tests (or of the request's ``tests``, kept
        in collection order), recording what they execute. A test still running after its
        timeout (``timeouts`` by node id, else ``timeout``) is stopped and reported hung."""
        index, count = request.get("shard", (0, 1))
        subset = request.get("tests")
        wanted = None if subset is None else set(subset)
        nodeids = [n for n in self.items if wanted is None or n in wanted]
        chunk = nodeids[len(nodeids) * index // count : len(nodeids) * (index + 1) // count]
        locate(self.items, chunk)
        default = float(request.get("timeout", 600.0))
        known: dict[str, float] = request.get("timeouts") or {}
        timeouts = {n: float(known.get(n, default)) for n in chunk}
        child = self.forker.run(
            stopping_the_run(lambda: self._observe_child(chunk, timeouts)),
            sum(timeouts.values()) + OBSERVE_SLACK,
        )
        if not child.ok or child.value is None:
            return {"op": "error", "message": f"observation run {child.status}: {child.detail}"}
        return {"op": "observed", **child.value}

    def _observe_child(self, nodeids: list[str], timeouts: dict[str, float]) -> dict[str, Any]:
        from lsp_server.extreme.execution_recorder import Recorder

        recorder = Recorder(self.root)
        if self.run_log is not None:
            recorder.share_files(self.run_log.recorder)  # parsed once, in the worker
        tests: dict[str, dict[str, Any]] = {}
        alarm = Alarm()
        recorder.start()
        try:
            for i, nodeid in enumerate(nodeids):
                item = self.items[nodeid]
                nxt = self.items[nodeids[i + 1]] if i + 1 < len(nodeids) else None
                recorder.begin_test()
                self.setup_clock.take()
                start = time.perf_counter()
                with alarm.armed(timeouts[nodeid]):
                    failed = self.run_item(item, nxt)
                duration = time.perf_counter() - start
                units = recorder.end_test()
                units |= at_import(self, units)  # what ran at import reached it too
                outcome = "hung" if alarm.fired else "failed" if failed else "passed"
                tests[nodeid] = {
                    "outcome": outcome,
                    "duration": duration,
                    "units": sorted(units),
                    "setup": self.setup_clock.take(),  # shared fixtures', by scope
                }
        finally:
            recorder.stop()
        returns = {unit: sorted(kinds) for unit, kinds in recorder.returns.items()}
        # The first test of a fresh child also pays for session and module fixtures; a
        # transformation's child pays that too, whichever test it starts with.
        setup = tests[nodeids[0]]["duration"] if nodeids else 0.0
        return {"tests": tests, "returns": returns, "setup": setup}

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        self.table, request = self.table.received(request)
        locate(self.items, request["tests"][:1])  # it runs first, in every child
        reply = run_transformation(self, request)
        locate(self.items, reply.get("tests", []))  # what ran: for the next requests
        return reply

    def set_up_child(self, request: dict[str, Any], transformed: bool) -> dict[str, Any] | None:
        """In a transformation's child, before its tests: the transformation installed
        (unless a control run) and the run log started; a reply when it cannot run."""
        if not transformed:
            return None
        try:
            install(self, request)
        except (swapping.SwapError, SyntaxError, OSError) as exc:
            return {"verdict": "error", "reason": str(exc)}
        if self.run_log is not None:
            self.run_log.start()
        return None

    def run_item(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool:
        """Run one test (setup, call, teardown) without reporting; True when it failed
        (how: ``self.failure.text``)."""
        item.__dict__["repr_failure"] = short_failure
        item.__dict__["_repr_failure_py"] = short_failure
        self.failure.reset()
        reports = runtestprotocol(item, log=False, nextitem=nextitem)
        if any(report.failed for report in reports) and not self.failure.text:
            self.failure.text = "failed"  # a report made failed after its hook (a plugin's)
        return bool(self.failure.text)


def main(argv: list[str], plugin_class: type[WorkerPlugin] = WorkerPlugin) -> int:
    root = os.path.realpath(argv[0])
    os.chdir(root)
    channel = inherited_channel()
    if channel is None:
        sys.stderr.write("the pytest worker runs only inside a reks sandbox process\n")
        return 2
    set_subreaper()
    use_private_cache()
    plugin = plugin_class(root, channel, inherited_siblings())
    plugin.session_writes.start(through=plugin.writes)  # before pytest configures plugins
    # A spare's wait: Python, pytest, reks and libraries imported, no tracing of them.
    plugin.scope = wait_before_pytest(channel, root)
    plugin.start_import_recording()
    off = [a for n in ("cacheprovider", "reks", "xdist", "randomly") for a in ("-p", f"no:{n}")]
    asserts = f"--assert={assert_mode(Path(root))}"
    args = [*off, asserts, "--capture=no", "-q", "--rootdir", root, *argv[1:]]
    plugins = [plugin, plugin.setup_clock, plugin.wanted, plugin.failure, project_options]
    code = pytest.main(args, plugins=plugins)
    if not plugin.served:
        why = f"pytest could not collect the tests of {root} (exit status {code})"
        plugin.send({"op": "error", "message": why})
        return 1
    return 0


if __name__ == "__main__":
    exit_at_once(main(sys.argv[1:]))
