"""The pre-import worker: transformations of functions that run while the project is imported,
applied before the import, without a new Python per transformation.

Swapping a function's code after import cannot undo what it did at import (a decorator, a
class body, a module-level call, a cached constant), so these verdicts used to come from a
plain pytest run on a private copy with the file rewritten: seconds per transformation.
This worker is a pytest session that loaded its plugins and the conftest files pytest
loads before collecting, and stopped there: the project is not imported. For each request
a forked child installs the rewritten file by an import hook (the user's file is never
touched), collects the covering tests' files (which imports the project through the hook),
and runs the tests like any transformation's child.

Sound only for files the session has not imported yet: the worker names the project's
files it imported (``preloaded``: a conftest or plugin that imports the project), and their
functions are checked the plain way on disk instead.
"""

from __future__ import annotations

import gc
import importlib.abc
import importlib.machinery
import linecache
import os
import signal
import sys
import time
from collections.abc import Sequence
from types import CodeType, ModuleType
from typing import Any

import pytest

from lsp_server.extreme.on_disk import RewriteError, function_id, rewrite_body
from lsp_server.extreme.pytest_worker import WorkerPlugin, main
from lsp_server.extreme.real_paths import real_path
from lsp_server.extreme.transform_run import IMPORT_HUNG_EXIT, run_child
from lsp_server.project.files import imported_project_files

IMPORT_BASE = 2.0
"""Seconds a run's import and collection may take beyond ``IMPORT_SCALE`` times what they
took on the code as it is."""
IMPORT_SCALE = 5.0
MEASURE_LIMIT = 60.0
"""Seconds the measuring collection may take (past it: no deadline, the request's timeout)."""


class _TransformedLoader(importlib.machinery.SourceFileLoader):
    """Loads the module from the rewritten text, never from bytecode."""

    def __init__(self, fullname: str, path: str, source: str) -> None:
        super().__init__(fullname, path)
        self.source = source

    def get_code(self, fullname: str) -> CodeType:
        return compile(self.source, self.path, "exec", dont_inherit=True)

    def get_source(self, fullname: str) -> str:
        return self.source


class TransformedFile(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path``: whatever finder finds the module whose file is ``path``,
    it is loaded from ``source``."""

    def __init__(self, path: str, source: str) -> None:
        self.path = os.path.realpath(path)
        self.source = source

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec: importlib.machinery.ModuleSpec | None = finder.find_spec(fullname, path, target)
            if spec is None:
                continue
            if spec.origin and os.path.realpath(spec.origin) == self.path:
                spec.loader = _TransformedLoader(fullname, spec.origin, self.source)
            return spec
        return None

    def install(self) -> None:
        sys.meta_path.insert(0, self)
        # ``inspect.getsource`` and tracebacks read the rewritten text, as on disk (an
        # entry without a modification time is never checked against the file).
        lines = self.source.splitlines(keepends=True)
        linecache.cache[self.path] = (len(self.source), None, lines, self.path)


class PreImportPlugin(WorkerPlugin):
    """The worker of the module docstring: ``pytest_worker``'s, which collects nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kept.off = True  # each child imports the project anew: none is kept
        self.session: pytest.Session | None = None
        self.startup_units: list[str] = []  # what ran before the first request
        self.collect_failures = 0
        # Seconds the import and collection of a set of test files took on the code as it
        # is (None: it did not finish), measured once per worker (``_import_deadline``).
        self.collect_seconds: dict[tuple[str, ...], float | None] = {}
        # The node ids that collection found (None: it did not finish). A parameter drawn
        # at collection (a time) gives a test another id at each collection.
        self.collected_ids: dict[tuple[str, ...], frozenset[str] | None] = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool:
        return True  # each child collects what its request needs

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_failures += 1

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        from lsp_server.extreme.run_log import RunLog

        self.served = True
        self.session = session
        signal.signal(signal.SIGTERM, self._terminate)
        recorder, self.import_recorder = self.import_recorder, None
        if recorder is not None:
            recorder.stop()
            # A plugin or conftest can run project code; a plain run records it too.
            self.startup_units = sorted(recorder.end_test())
        self.run_log = RunLog(self.root)
        self.run_log.prewarm()
        gc.collect()
        gc.freeze()
        preloaded = imported_project_files(self.root, real_path)
        self.send({"op": "ready", "pid": os.getpid(), "tests": 0, "preloaded": preloaded})
        self.serve()
        if self.is_sibling:
            os._exit(0)
        return True

    def prepare(self, files: list[str]) -> dict[str, Any]:
        """Imports nothing (the point of this worker): only forks the pool's other workers."""
        self.fork_siblings()
        return {"op": "prepared", "pid": os.getpid()}

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        """A transformation's run; with ``confirm``, a detection stands only if the
        detecting test passes on the code as it is (after an edit it may fail anyway)."""
        deadline = self._import_deadline(_test_files(self.root, request["tests"]))
        reply = super().run({**request, "import_deadline": deadline})
        detector = reply.get("detected_by")
        if request.get("confirm") and reply.get("verdict") == "detected" and detector:
            control = {**request, "tests": [detector], "import_deadline": None}
            reply["confirmed"] = detector  # run on the code as it is (an observation)
            if run_child(self, control, transformed=False)["verdict"] != "undetected":
                reason = f"{detector} does not pass on the edited code"
                reply.update(verdict="error", reason=reason)
        if "units" in reply:
            reply["units"] = sorted({*reply["units"], *self.startup_units})
        return reply

    def set_up_child(self, request: dict[str, Any], transformed: bool) -> dict[str, Any] | None:
        """In the child: the rewritten file's import hook (unless a control run), the run
        log started, the tests' files collected. A collection that fails or loses one of
        the tests is a detection, as the plain run's usage or collection error is."""
        if transformed:
            path = os.path.realpath(os.path.join(self.root, request["path"]))
            name = request["function"].rsplit(".", 1)[-1]
            try:
                with open(path, encoding="utf-8") as file:
                    source = rewrite_body(file.read(), request["line"], name, request["body"])
            except (OSError, UnicodeDecodeError, SyntaxError, RewriteError) as exc:
                return {"verdict": "error", "reason": f"cannot rewrite the file: {exc}"}
            TransformedFile(path, source).install()
        if self.run_log is not None:
            self.run_log.start()  # collection imports the project: record it too
        tests: list[str] = request["tests"]
        deadline = request.get("import_deadline")
        if deadline is not None:  # a hang at import stops here, not at the whole timeout
            signal.signal(signal.SIGALRM, lambda signum, frame: os._exit(IMPORT_HUNG_EXIT))
            signal.setitimer(signal.ITIMER_REAL, deadline)
        try:
            self._collect(_test_files(self.root, tests))
        except (pytest.UsageError, Interrupted) as exc:
            return {"verdict": "detected", "reason": f"the tests could not be collected: {exc}"}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        assert self.session is not None
        self.items = {item.nodeid: item for item in self.session.items}
        if self.collect_failures:
            return {"verdict": "detected", "reason": "the tests could not even be collected"}
        missing = [t for t in tests if t not in self.items]
        return self._not_collected(request, missing) if missing else None

    def _not_collected(self, request: dict[str, Any], missing: list[str]) -> dict[str, Any] | None:
        """The reply when the child did not collect ``missing`` (of the request's tests): a
        detection, unless the code as it is does not collect them either (their ids change
        at each collection): then no run can be made with them. A test whose function is
        still collected under other ids (its parameters are made by the transformed code)
        runs under those (``_renamed``): None, the request's tests replaced."""
        tests: list[str] = request["tests"]
        ids = self.collected_ids.get(tuple(_test_files(self.root, tests)))
        lost = [t for t in missing if ids is None or t in ids]
        if lost and self._renamed(request, lost):
            return None
        if lost:
            return {"verdict": "detected", "reason": f"{lost[0]} is no longer collected"}
        reason = (
            f"{missing[0]} cannot be run again: its id changes at each collection "
            "(the code as it is does not collect it either)"
        )
        return {"verdict": "error", "reason": reason}

    def _renamed(self, request: dict[str, Any], lost: list[str]) -> bool:
        """Whether the function of each ``lost`` test is collected under other ids; if so,
        ``request`` (the child's) runs those in their places, without per-test deadlines
        (they were set for the old ids), and a verdict's reason says the ids changed."""
        by_function: dict[str, list[str]] = {}
        for nodeid in self.items:
            by_function.setdefault(function_id(nodeid), []).append(nodeid)
        if not all(by_function.get(function_id(t)) for t in lost):
            return False
        tests: list[str] = request["tests"]
        renamed = [n for t in tests for n in (by_function[function_id(t)] if t in lost else [t])]
        request["tests"] = list(dict.fromkeys(renamed))
        request["deadlines"] = []
        request.pop("basis", None)
        request["note"] = f"parametrization ids changed ({lost[0]} not collected)"
        return True

    def _collect(self, files: list[str]) -> None:
        assert self.session is not None
        self.session.perform_collect(files)

    def _import_deadline(self, files: list[str]) -> float | None:
        """Seconds a run's import of the project and collection of ``files`` may take:
        ``IMPORT_SCALE`` times what they take on the code as it is (measured in a child of
        its own the first time, which also keeps the node ids it collected) plus
        ``IMPORT_BASE``; None when that did not finish."""
        key = tuple(files)
        if key not in self.collect_seconds:

            def timed() -> dict[str, Any] | None:
                started = time.perf_counter()
                try:
                    self._collect(files)
                except (pytest.UsageError, Interrupted):
                    return None
                seconds = time.perf_counter() - started
                assert self.session is not None
                return {"seconds": seconds, "ids": [i.nodeid for i in self.session.items]}

            child = self.forker.run(timed, MEASURE_LIMIT)
            value = child.value if child.ok else None
            self.collect_seconds[key] = value["seconds"] if value else None
            self.collected_ids[key] = frozenset(value["ids"]) if value else None
        seconds = self.collect_seconds[key]
        return None if seconds is None else IMPORT_BASE + IMPORT_SCALE * seconds


Interrupted = pytest.Session.Interrupted


def _test_files(root: str, tests: Sequence[str]) -> list[str]:
    """The files of ``tests`` (node ids), absolute, sorted."""
    return sorted({os.path.join(root, t.split("::", 1)[0]) for t in tests})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], PreImportPlugin))
