"""Collecting which code objects ran, per test.

On Python 3.12+ ``sys.monitoring`` PY_START is enabled as a *local* event on the project's own
code objects only: those of functions alive when tracing starts (``rts.alive_code``, nested code
objects through ``co_consts``), and those of every module or string executed later (the ``exec``
audit event fires before the code runs, for imports too). Library and pytest code is never
instrumented, so it runs at full speed. The callback records each code object once and returns
``DISABLE``; ``take()`` calls ``restart_events()`` so the next test sees every code object again.
On 3.10/3.11 a profile hook (``sys.setprofile`` and ``threading.setprofile``) records the code of
every ``call``. Both also keep each module's import footprint (see ``CodeTracer``), and the kinds
of the values project functions return (``lsp_server.rts.returns``): on 3.12+ PY_RETURN is a local
event of project functions, disabled after a few returns per test.

Code objects are kept by identity (``rts.identity``), not by value: two code objects compare equal
when their bytecode, names and first line agree, whatever file they come from, and a test
that ran both must depend on both files. Every code object seen is retained, so an id is
never reused while it is a key. The profile hook is ``rts.profile_tracer``.

Files opened are observed by ``rts.audit_events``, which also hands the tracer every code
object about to be executed. Lookups by a name held in a variable are recorded as they run
(``rts.runtime_lookups``: CALL events on 3.12+, the hook's ``c_call`` before).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from sys import _getframe
from types import CodeType
from typing import Any

from lsp_server.rts.alive_code import project_functions_alive
from lsp_server.rts.audit_events import watch_exec
from lsp_server.rts.dead_runs import DEAD_RUNS
from lsp_server.rts.getattr_branches import ASKED
from lsp_server.rts.identity import identity
from lsp_server.rts.module_presence import PresenceWatch
from lsp_server.rts.read_lines import ReadLineWatch
from lsp_server.rts.returns import (
    KIND_BY_TYPE,
    OTHER_KIND,
    RETURNS_PER_TEST,
    constant_returns,
    kind_of,
    returns_values,
)
from lsp_server.rts.runtime_lookups import RuntimeLookups

_MON: Any = getattr(sys, "monitoring", None)

CodeSet = dict[int, CodeType]
"""Code objects by ``identity``."""
RanSoFar = list[tuple[CodeSet, int]]
"""Each set holding what ran so far in a test, with its size then (a set only grows while
the test runs: its first entries stay what ran before that moment)."""
ReturnKinds = dict[int, tuple[CodeType, set[str]]]
"""Kinds of the values returned by each code object (by ``identity``, the code kept alive)."""


@dataclass(frozen=True)
class SpanToken:
    """An open span: the set it returns to, the module windows open then, the takes."""

    outer: CodeSet
    windows: int
    takes: int


class CodeTracer:
    """Code objects started since the last ``take()``, and the *import footprint* of every
    module executed meanwhile: the code objects that ran while its top level ran. A
    decorator or class builder runs once, when the first module using it is imported, yet
    every test using what it built depends on it: through the footprint of the module that
    was imported, whichever test or conftest imported it first."""

    records_returns = True
    """Whether ``take_returns`` tells what the functions that ran returned."""

    def __init__(self, is_project_file: Callable[[str], bool] | None = None) -> None:
        self._seen: CodeSet = {}
        ASKED.restart()  # what an earlier session's tracer watched is told no more
        # Names looked up by a name held in a variable (``rts.runtime_lookups``).
        self.lookups = RuntimeLookups(is_project_file or (lambda _: False))
        # Open module executions, innermost last: (module code, the set to return to).
        self._windows: list[tuple[CodeType, CodeSet]] = []
        self._footprints: list[tuple[CodeType, CodeSet]] = []
        self._takes = 0  # how many ``take`` calls: a span open across one is lost
        self._span_outers: list[CodeSet] = []  # the sets open spans return to
        self.returns: ReturnKinds = {}
        self._return_counts: dict[int, int] = {}  # returns recorded per code in this test
        # Code that ran a line reading code or docstrings: told on 3.12+ only.
        self.read_lines = ReadLineWatch(seen=False)

    def take_returns(self) -> ReturnKinds:
        """What project functions returned since the last call (``self.returns`` stays the
        same dict: the 3.12 callback holds it)."""
        returns = dict(self.returns)
        self.returns.clear()
        return returns

    def _record_return(self, code: CodeType, value: object) -> None:
        found = self.returns.get(identity(code))
        if found is None:
            self.returns[identity(code)] = (code, {kind_of(value)})
        else:
            found[1].add(kind_of(value))

    @property
    def started(self) -> bool:
        raise NotImplementedError

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def reinstate(self) -> bool:
        """Put the tracer back if something switched it off while it was started; whether
        it had to (what ran meanwhile was not seen). Only a profile hook can be lost."""
        return False

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """reks's own work between tests (analysis, store writes) runs outside the tracer:
        here a no-op, as the tracer only ever sees project code."""
        yield

    def take(self, restart: bool = True) -> CodeSet:
        """Code objects seen since the last call. ``restart=False`` when nothing will be
        attributed until the next ``take()`` with restart (the end of a test)."""
        self._close_module(None)
        seen = self._seen
        self._use({})
        self._takes += 1
        self._span_outers.clear()  # what they held went with an earlier take
        if restart:
            self._return_counts.clear()
            self.lookups.restart()
        return seen

    spans = False
    """Whether ``open_span``/``close_span`` tell what ran in between (3.12+ only: the
    profile hook and the markers record a code object once per test)."""

    def open_span(self) -> SpanToken:
        """Collect apart what runs from now on (a call's span), until ``close_span``."""
        token = SpanToken(self._seen, len(self._windows), self._takes)
        self._span_outers.append(self._seen)
        self._use({})
        return token

    def close_span(self, token: SpanToken) -> CodeSet | None:
        """What ran since ``token`` was opened, also kept as run in the enclosing set; None
        when a ``take`` came between (what ran before it went with it)."""
        outers = self._span_outers
        if outers and outers[-1] is token.outer:
            outers.pop()
        if token.takes != self._takes:
            return None
        if len(self._windows) > token.windows:  # a module the span imported raised
            self._close_module(self._windows[token.windows][0])
        span = self._seen
        token.outer.update(span)
        self._use(token.outer)
        return span

    sets_apart = True
    """Whether ``set_apart`` collects apart what runs from then on (the instrumented
    tracer's markers reach the current set only when flushed: it cannot)."""

    def set_apart(self) -> SpanToken:
        """Collect what runs from now on apart, until ``set_back``: an open span that does
        not make code seen earlier in the test be seen again (``rts.collector_runs``)."""
        return CodeTracer.open_span(self)

    def set_back(self, token: SpanToken) -> CodeSet:
        """Back to the set ``token`` was set apart from, without what ran meanwhile, which
        is returned; kept in that set after all (``close_span``: nothing apart) when a
        module started meanwhile is still running."""
        if len(self._windows) != token.windows or token.takes != self._takes:
            self.close_span(token)
            return {}
        outers = self._span_outers
        if outers and outers[-1] is token.outer:
            outers.pop()
        apart = self._seen
        self._use(token.outer)
        return apart

    def see_again(self) -> None:
        """Code that ran apart is recorded again the next time it runs (3.12+ disabled its
        events once seen); the profile hook records every call anyway."""

    def ran_so_far(self) -> RanSoFar | None:
        """The sets holding what ran since the last ``take``, with their sizes now; None
        where the order code first ran in is not kept (the profile hook and the markers)."""
        return None

    def take_footprints(self) -> list[tuple[CodeType, CodeSet]]:
        """(module code, what ran while it ran) of the module executions finished since the
        last call."""
        footprints, self._footprints = self._footprints, []
        return footprints

    def _use(self, seen: CodeSet) -> None:
        self._seen = seen

    def _open_module(self, code: CodeType) -> None:
        self._windows.append((code, self._seen))
        self._use(DEAD_RUNS.window(code))  # a marker when run under other values

    def _close_module(self, code: CodeType | None) -> None:
        """Close the windows up to ``code``'s (None: all of them); each inner window's code
        also ran in the windows around it."""
        windows = self._windows
        if not windows or (code is not None and all(c is not code for c, _ in windows)):
            return
        while windows:
            module, outer = windows.pop()
            footprint = self._seen
            self._footprints.append((module, footprint))
            outer.update(footprint)
            self._use(outer)
            if module is code:
                break


class MonitoringTracer(CodeTracer):
    """``sys.monitoring`` PY_START on project code, with per-code DISABLE (Python 3.12+);
    PY_RETURN on project module code, to close its import footprint, and on project
    functions, for the kinds they return (per return site DISABLE); LINE on the few that
    read code or docstrings (``rts.read_lines``)."""

    # Tool ids 0-2 are claimed by debuggers, coverage and profilers; 5 is the optimizer's.
    _CANDIDATE_IDS = (4, 3, 2)

    def __init__(self, is_project_file: Callable[[str], bool]) -> None:
        super().__init__(is_project_file)
        self._tool: int | None = None
        self._is_project_file = is_project_file
        self._files, self._instrumented = dict[str, bool](), CodeSet()
        self.lookups.listing_seen = lambda: self._seen  # ``rts.listing_marks``
        # The callback runs once per code object per test: keep it to a bound method call
        # on the current set, held in a closure cell, and constants from the closure.
        remember = self._seen.__setitem__
        disable = _MON.DISABLE
        # Module ``__getattr__``s: every call tells its name (``rts.getattr_branches``).
        asking, marker, getframe = ASKED.watched, ASKED.marker, _getframe

        def on_start(code: CodeType, offset: int) -> Any:
            key = identity(code)
            remember(key, code)
            if key not in asking:
                return disable
            found = marker(code, getframe(1))
            remember(identity(found), found)
            return None

        def rebind(seen: CodeSet) -> None:
            nonlocal remember
            remember = seen.__setitem__

        counts = self._return_counts
        # (identity(code), offset) of the sites returning a constant: one kind, known after one
        # return (`return None`, `return True`: two returns in five on sqlparse).
        constant_sites = self._constant_sites = set[tuple[int, int]]()

        # The hottest callback (sqlparse: 138,000 returns in a run): ``_record_return`` and
        # ``kind_of`` inlined, everything it needs in the closure.
        returns, kinds_by_type = self.returns, KIND_BY_TYPE
        close_module = self._close_module

        def on_return(code: CodeType, offset: int, value: object) -> Any:
            if code.co_name == "<module>":
                close_module(code)
                return disable
            key = identity(code)
            found = returns.get(key)
            if found is None:
                found = returns[key] = (code, set())
            found[1].add(kinds_by_type.get(type(value), OTHER_KIND))
            count = counts[key] = counts.get(key, 0) + 1
            full = count >= RETURNS_PER_TEST
            return disable if full or (key, offset) in constant_sites else None

        self.read_lines = ReadLineWatch(seen=True, is_project_file=is_project_file)
        self.presence = PresenceWatch(lambda: self._seen)  # asks of ``sys.modules``
        self._on_start = on_start
        self._on_return = on_return
        self._on_call = self.lookups.call_event(disable)
        self._rebind = rebind

    def _use(self, seen: CodeSet) -> None:
        self._seen = seen
        self._rebind(seen)

    def instrument(self, code: CodeType) -> None:
        """Enable PY_START on ``code`` and the code objects nested in it, if they come from
        a project file (and PY_RETURN on module code)."""
        tool = self._tool
        if tool is None:
            return
        instrumented, files = self._instrumented, self._files
        events = _MON.events
        stack = [code]
        while stack:
            current = stack.pop()
            if identity(current) in instrumented:
                continue
            filename = current.co_filename
            wanted = files.get(filename)
            if wanted is None:
                wanted = files[filename] = self._is_project_file(filename)
            if not wanted:
                continue
            instrumented[identity(current)] = current
            wanted_events = events.PY_START
            ASKED.watch(current)
            if current.co_name == "<module>" or returns_values(current):
                wanted_events |= events.PY_RETURN
                key = identity(current)
                self._constant_sites.update((key, at) for at in constant_returns(current))
            wanted_events |= events.CALL if self.lookups.watches_calls(current) else 0
            wanted_events |= events.LINE if self.read_lines.watch(current) else 0
            wanted_events |= events.INSTRUCTION if self.presence.watch(current) else 0
            _MON.set_local_events(tool, current, wanted_events)
            stack.extend(c for c in current.co_consts if type(c) is CodeType)

    def _on_exec(self, code: CodeType) -> None:
        self.instrument(code)
        self.read_lines.evaluated(code)
        if code.co_name == "<module>" and identity(code) in self._instrumented:
            self._open_module(code)
            # What earlier tests or imports ran was disabled: it must be seen again.
            _MON.restart_events()

    @property
    def started(self) -> bool:
        return self._tool is not None

    def start(self) -> None:
        mon = _MON
        for tool in self._CANDIDATE_IDS:
            if mon.get_tool(tool) is None:
                mon.use_tool_id(tool, "reks")
                self._tool = tool
                break
        else:
            raise RuntimeError("reks: no free sys.monitoring tool id")
        mon.register_callback(self._tool, mon.events.PY_START, self._on_start)
        mon.register_callback(self._tool, mon.events.PY_RETURN, self._on_return)
        mon.register_callback(self._tool, mon.events.CALL, self._on_call)
        mon.register_callback(self._tool, mon.events.LINE, self.read_lines.line_event(mon.DISABLE))
        mon.register_callback(self._tool, mon.events.INSTRUCTION, self.presence.event(mon.DISABLE))
        watch_exec(self._on_exec)
        for function in project_functions_alive(self._is_wanted):
            self.instrument(function.__code__)

    def _is_wanted(self, filename: str) -> bool:
        wanted = self._files.get(filename)
        if wanted is None:
            wanted = self._files[filename] = self._is_project_file(filename)
        return wanted

    def stop(self) -> None:
        if self._tool is None:
            return
        watch_exec(None)
        mon = _MON
        for code in self._instrumented.values():
            mon.set_local_events(self._tool, code, 0)
        for event in ("PY_START", "PY_RETURN", "CALL", "LINE", "INSTRUCTION"):
            mon.register_callback(self._tool, getattr(mon.events, event), None)
        mon.free_tool_id(self._tool)
        self._tool = None

    spans = True

    def ran_so_far(self) -> RanSoFar | None:
        live = [(self._seen, len(self._seen))]
        live.extend((outer, len(outer)) for _, outer in self._windows)
        live.extend((outer, len(outer)) for outer in self._span_outers)
        return live

    def open_span(self) -> SpanToken:
        token = super().open_span()
        _MON.restart_events()  # code that ran earlier in the test was disabled
        return token

    def take(self, restart: bool = True) -> CodeSet:
        seen = super().take(restart)
        if restart:
            _MON.restart_events()
        return seen

    def see_again(self) -> None:
        _MON.restart_events()
