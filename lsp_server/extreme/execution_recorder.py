"""The observation run's recorder: which project units each test executes, and the kinds of
values each function returned. Runs inside a forked child of the worker.

On Python 3.12+ it uses ``sys.monitoring`` (events of code outside the project are
disabled after their first occurrence, and re-enabled per test with ``restart_events`` so
every test sees every unit it runs); on 3.10/3.11 a profile hook.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_server.extreme.real_paths import real_path
from lsp_server.rts.analysis_cache import AnalysisCache
from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.returns import NOT_RETURNING, RETURNS_PER_TEST, is_real_return, kind_of
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.unit_names import MODULE

_TOOL_NAME = "reks-extreme"


def _monitoring() -> Any:
    return getattr(sys, "monitoring")  # noqa: B009 - 3.12+ only; typed for 3.10


@dataclass(frozen=True)
class _CodeInfo:
    unit: str  # "path::name" of the unit the code belongs to
    exact: bool  # the code is the unit's own function (not nested, not module code)
    ran: tuple[str, ...] = ()  # ``unit`` and the functions it is nested in: what a test ran


class Recorder:
    """Collects per-test units and per-function return kinds for files under ``root``.

    ``returns=False``: units only. ``sink``: called with each unit the first time it runs
    (a transformation's child writes them out as they come, so even a child killed at its
    timeout leaves the record of what it ran). ``analyses``: where the kept analyses of
    the files are (default: ``root``'s)."""

    def __init__(
        self,
        root: str,
        returns: bool = True,
        sink: Callable[[str], None] | None = None,
        analyses: AnalysisCache | None = None,
    ) -> None:
        self.root = os.path.realpath(root) + os.sep
        self.with_returns = returns
        self.sink = sink
        self._files: dict[str, FileUnits | None] = {}
        self._analyses = analyses or AnalysisCache(Path(self.root))
        # By id(code), with the code kept alive in the value: equal code objects of two
        # files (same bytecode, names and first line) are different functions.
        self._codes: dict[int, tuple[types.CodeType, _CodeInfo | None]] = {}
        self.current: set[str] = set()
        self.returns: dict[str, set[str]] = {}
        self._tool: int | None = None
        self.stopped_tool: int | None = None  # the tool id it held last
        self._returns_seen: dict[int, int] = {}
        self._muted: dict[int, tuple[types.CodeType, _CodeInfo | None]] = {}
        self._muted_tool: int | None = None

    def mute(self, other: Recorder) -> None:
        """Report no code ``other`` saw start while this one holds the tool id ``other``
        held: what a child forked after ``other`` stopped never reports (``other``
        disabled those events of that tool), in a process that enabled them again
        (``kept_child``)."""
        self._muted, self._muted_tool = other._codes, other.stopped_tool

    # -- mapping code to units --------------------------------------------------------

    def _file_units(self, filename: str) -> FileUnits | None:
        if filename in self._files:
            return self._files[filename]
        units: FileUnits | None = None
        # "<frozen os>", "<string>": no file (resolved against the working directory, the
        # project's root, such a name would look like one of its files).
        real = "" if filename.startswith("<") else real_path(filename)
        if real.startswith(self.root) and real.endswith(".py"):
            rel = real[len(self.root) :]
            parts = rel.split(os.sep)
            if "site-packages" not in parts and not any(p.startswith(".") for p in parts):
                # Kept analyses (``pytest --reks`` leaves one of every file its tests ran)
                # load in a millisecond; parsing more-itertools' files took seconds.
                states = FileStates(Path(self.root), analyses=self._analyses)
                try:
                    units = states.units("/".join(parts))
                except (OSError, ValueError):
                    units = None
        self._files[filename] = units
        return units

    def _info(self, code: types.CodeType) -> _CodeInfo | None:
        try:
            return self._codes[id(code)][1]
        except KeyError:
            pass
        info: _CodeInfo | None = None
        units = self._file_units(code.co_filename)
        if units is not None:
            qualname = getattr(code, "co_qualname", None)
            if qualname is not None:
                unit = units.unit_for_qualname(qualname)
                exact = unit.name == qualname
            else:
                unit = units.unit_for_code(code)
                span = units.spans.get(unit.name)
                exact = (
                    span is not None
                    and span.first_line == code.co_firstlineno
                    and unit.name.rsplit(".", 1)[-1] == code.co_name
                )
            if unit.name == MODULE:
                exact = False
            key = f"{unit.path}::{unit.name}"
            # A nested function's behaviour also comes from the function around it (its
            # closure, the wrapper a decorator factory built): running it counts for both.
            ran = (key, *(f"{u.path}::{u.name}" for u in units.enclosing(unit)))
            info = _CodeInfo(key, exact, ran)
        self._codes[id(code)] = (code, info)
        return info

    def share_files(self, other: Recorder) -> None:
        """Start from the files ``other`` parsed already (a worker's, inherited by a child)."""
        self._files.update(other._files)

    def prewarm(self, filenames: list[str]) -> None:
        """Parse ``filenames`` now (in a worker, before it forks: children inherit them)."""
        for filename in filenames:
            self._file_units(filename)

    def forget(self, filenames: set[str]) -> None:
        """Drop what is known of ``filenames`` (edited: their units' spans moved)."""
        for name in [n for n in self._files if os.path.realpath(n) in filenames]:
            del self._files[name]
        self._codes.clear()

    def _ran(self, info: _CodeInfo) -> None:
        if self.sink is None:
            self.current.update(info.ran)
            return
        for unit in info.ran:
            if unit not in self.current:
                self.current.add(unit)
                self.sink(unit)

    # -- per-test bookkeeping ---------------------------------------------------------

    def begin_test(self) -> None:
        self.current = set()
        self._returns_seen.clear()
        if self._tool is not None:
            _monitoring().restart_events()

    def end_test(self) -> set[str]:
        units, self.current = self.current, set()
        return units

    def _record_return(self, code: types.CodeType, info: _CodeInfo, value: object) -> None:
        if code.co_flags & NOT_RETURNING:
            return
        self.returns.setdefault(info.unit, set()).add(kind_of(value))

    # -- hooks ------------------------------------------------------------------------

    def start(self) -> None:
        if hasattr(sys, "monitoring"):
            self._start_monitoring()
        else:
            sys.setprofile(self._profile)

    def stop(self) -> None:
        self.stopped_tool = self._tool
        if self._tool is not None:
            mon = _monitoring()
            mon.set_events(self._tool, 0)
            mon.free_tool_id(self._tool)
            self._tool = None
        else:
            sys.setprofile(None)

    def _start_monitoring(self) -> None:
        mon = _monitoring()
        for tool in (4, 3, 1, 2, 0):
            if mon.get_tool(tool) is None:
                mon.use_tool_id(tool, _TOOL_NAME)
                self._tool = tool
                break
        else:
            sys.setprofile(self._profile)
            return
        disable = mon.DISABLE
        muted = self._muted if self._tool == self._muted_tool else {}

        def on_start(code: types.CodeType, offset: int) -> object:
            if muted and id(code) in muted:
                return disable
            info = self._info(code)
            if info is not None:
                self._ran(info)
            return disable  # until the next test's restart_events

        seen = self._returns_seen

        def on_return(code: types.CodeType, offset: int, value: object) -> object:
            info = self._info(code)
            if info is None or not info.exact or code.co_flags & NOT_RETURNING:
                return disable
            self._record_return(code, info, value)
            # A hot function would call back on every return; after a few per test its
            # kinds are known well enough (re-enabled by the next test's restart_events).
            count = seen[id(code)] = seen.get(id(code), 0) + 1
            return disable if count >= RETURNS_PER_TEST else None

        tool = self._tool
        mon.register_callback(tool, mon.events.PY_START, on_start)
        events = mon.events.PY_START
        if self.with_returns:
            mon.register_callback(tool, mon.events.PY_RETURN, on_return)
            events |= mon.events.PY_RETURN
        mon.set_events(tool, events)

    def _profile(self, frame: types.FrameType, event: str, arg: object) -> None:
        if event == "call":
            info = self._info(frame.f_code)
            if info is not None:
                self._ran(info)
        elif event == "return" and self.with_returns:
            code = frame.f_code
            info = self._info(code)
            if info is None or not info.exact:
                return
            if is_real_return(frame):
                self._record_return(code, info, arg)
