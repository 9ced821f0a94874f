"""Does T read the wall clock during capture? A replay answers E from the capture's moment
while T's own clock reads give the replay's moment: a test that compares the two (dunamai's
tests check that a commit date from git lies within a minute of now) passes when it is
factored and fails on unchanged code a minute later. Such reads are reported with the
factored test (non-determinism inside T is reported, not papered over).

Python 3.12+: a ``sys.monitoring`` CALL event, disabled at every call site after its first
call (the cost is one callback per call site); 3.10 and 3.11: a profile hook on the test's
thread for ``c_call`` events, chained to the hook that was there.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from sys import _getframe
from types import CodeType, FrameType
from typing import Any

from lsp_server.factoring.boundary import Boundary
from lsp_server.factoring.clock_readers import ALWAYS_NOW, NOW_CONSTRUCTORS
from lsp_server.factoring.t_activity import WindowWatch

_FUNCTIONS = {getattr(module, name): f"{module.__name__}.{name}" for module, name in ALWAYS_NOW}
_METHODS: dict[tuple[type, str], str] = {
    (cls, name): f"{cls.__module__}.{cls.__name__}.{name}"
    for cls, names in NOW_CONSTRUCTORS.items()
    for name in names
}
_MONITORING: Any = getattr(sys, "monitoring", None)


def clock_name(fn: Any) -> str | None:
    """``datetime.datetime.now`` for a callable that reads the wall clock, else None."""
    try:
        name = _FUNCTIONS.get(fn)
    except TypeError:  # an unhashable callable
        return None
    if name is not None:
        return name
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, type):
        return _METHODS.get((owner, getattr(fn, "__name__", "")))
    return None


class ClockWatch(WindowWatch):
    """The places in T (project and test files, not E's modules) that read the wall clock
    while the capture window is open (``reads``: ``path:line name``, in first-read order)."""

    def __init__(
        self, root: Path, boundaries: Sequence[Boundary], in_environment: Callable[[], bool]
    ) -> None:
        super().__init__(root, boundaries, in_environment)
        self.reads: list[str] = []
        self._files: dict[str, str | None] = {}
        self._tool: int | None = None

    def start(self) -> None:
        if _MONITORING is not None:
            self._start_monitoring()
            return
        self._previous = sys.getprofile()
        sys.setprofile(self._profile)

    def stop(self) -> None:
        if self._tool is not None:
            _MONITORING.set_events(self._tool, 0)
            _MONITORING.register_callback(self._tool, _MONITORING.events.CALL, None)
            _MONITORING.free_tool_id(self._tool)
            self._tool = None
        elif sys.getprofile() == self._profile:
            sys.setprofile(self._previous)

    def _start_monitoring(self) -> None:
        free = [t for t in range(6) if _MONITORING.get_tool(t) is None]
        if not free:
            return  # every tool id is taken: no report rather than no capture
        self._tool = free[-1]
        _MONITORING.use_tool_id(self._tool, "reks-factoring-clock")
        _MONITORING.register_callback(self._tool, _MONITORING.events.CALL, self._call)
        _MONITORING.restart_events()  # call sites disabled in an earlier window count again
        _MONITORING.set_events(self._tool, _MONITORING.events.CALL)

    def _call(self, code: CodeType, offset: int, fn: Any, arg0: Any) -> Any:
        name = clock_name(fn)
        if name is not None and not self.in_environment():
            rel = self._t_file(code.co_filename)
            if rel is not None:
                self._note(rel, _getframe(1).f_lineno, name)
        return _MONITORING.DISABLE

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if self._previous is not None:
            self._previous(frame, event, arg)
        if event != "c_call":
            return
        name = clock_name(arg)
        if name is None or self.in_environment():
            return
        rel = self._t_file(frame.f_code.co_filename)
        if rel is not None:
            self._note(rel, frame.f_lineno, name)

    def _note(self, rel: str, line: int | None, name: str) -> None:
        place = f"{rel}:{line} {name}"
        if place not in self.reads:
            self.reads.append(place)

    def _t_file(self, filename: str) -> str | None:
        """The root-relative path of a file of T (None for E's and everything else)."""
        if filename in self._files:
            return self._files[filename]
        rel = self.paths.python_rel(filename)
        if rel is not None:
            module = rel.removesuffix(".py").replace("/", ".").removeprefix("src.")
            if any(b.owns_module(module) for b in self.boundaries):
                rel = None
        self._files[filename] = rel
        return rel
