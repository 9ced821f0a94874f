"""A tracer for Python 3.10/3.11 (``REKS_TRACER=instrumented``, see ``rts.tracer_choice``)
when the project's modules are imported after recording starts: they are compiled with
markers (``rts.instrument_loader``), so no Python code runs per call. Under 3.11 an empty
profile hook alone costs 1.5x plain pytest on toolz and 1.9x on sqlparse, the markers 1.1x
(``bench/tracer_floor.py``: compiling them, and a store per call).

What the markers cannot tell is recorded another way, or read conservatively:

- Import footprints: the loader's ``exec_module`` opens and closes each module's window.
- Lookups by a name held in a variable (``rts.runtime_lookups``): a site naming a constant
  (``getattr(token, "parent")``) reads that name, known from the code; code with other
  sites gets a marker calling ``ENTER_NAME``, which sets a profile hook seeing the lookup
  functions' calls (as ``ProfileTracer`` does) until its frame returns (hot code stops
  setting it once it gave up: ``MAX_CALLS``); the same hook watches every project module's
  top level (registries filled at import: toolz's signatures). A generator or coroutine
  with such sites (its frame returns at each ``yield``) reads every name (``EVERY_NAME``)
  when it ran outside an import, as before runtime lookups; so does code that started
  while another profile hook (not reks's) was set.
- Return kinds: each return site calls the tracer until its kind is known enough
  (``rts.return_sites``, ``rts.return_notes``); code without markers (below) returns
  unseen, so once some ran ``records_returns`` is False (the recorder then marks every test
  recorded so far as having no kinds, and the extreme analysis observes them).
- Code that was not compiled with markers (a project function alive before recording
  started, project code executed from elsewhere than the loader): counted as run by every
  test from then on (``_always``), a superset of what a hook would see.
- Generators and coroutines mark their code when first started, not at each resume (a
  profile hook sees every resume).
"""

from __future__ import annotations

import builtins
import importlib
import sys
from collections.abc import Callable
from sys import _getframe
from types import CodeType, FrameType
from typing import Any

from lsp_server.rts.alive_code import project_functions_alive
from lsp_server.rts.audit_events import watch_exec
from lsp_server.rts.constant_lookups import constant_names
from lsp_server.rts.dead_runs import DEAD_RUNS
from lsp_server.rts.identity import identity
from lsp_server.rts.instrument_loader import WATCH_HOOK, InstrumentingFinder, shared_table
from lsp_server.rts.lookup_sites import IMPORT_MODULE_CODE, LOOKUP_FUNCTIONS
from lsp_server.rts.marker_codes import ENTER_NAME, MARKER_NAMES
from lsp_server.rts.method_sites import MethodSiteWatch, watchable
from lsp_server.rts.reads import EVERY_NAME
from lsp_server.rts.return_notes import ReturnNotes
from lsp_server.rts.returns import returns_values
from lsp_server.rts.tracing import CodeSet, CodeTracer


def _nested(code: CodeType) -> list[CodeType]:
    """``code`` and every code object nested in it."""
    found, stack = [], [code]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(c for c in current.co_consts if type(c) is CodeType)
    return found


def _is_instrumented(code: CodeType) -> bool:
    return not MARKER_NAMES.isdisjoint(code.co_names)


def _assertion_rewriter() -> tuple[Any, Callable[[Any, bytes, str], None] | None]:
    """pytest's assertion rewriting hook of the running session (the innermost, first on
    ``sys.meta_path``), and a call of its rewriting on a parsed module."""
    try:
        from _pytest.assertion.rewrite import AssertionRewritingHook, rewrite_asserts
    except ImportError:
        return None, None
    hook = next((f for f in sys.meta_path if isinstance(f, AssertionRewritingHook)), None)
    if hook is None:
        return None, None
    config = hook.config

    def pytest_rewrite(tree: Any, source: bytes, path: str) -> None:
        rewrite_asserts(tree, source, path, config)

    return hook, pytest_rewrite


class InstrumentedTracer(CodeTracer):
    """Project code compiled with markers; a profile hook only while project modules
    import (see the module's docstring for what it records and what it reads
    conservatively)."""

    sets_apart = False  # what a collection runs stays the test's, as before

    def __init__(
        self,
        is_project_file: Callable[[str], bool],
        is_test_file: Callable[[str], bool] | None = None,
    ) -> None:
        super().__init__(is_project_file)
        self._is_project_file = is_project_file
        # The tests' return kinds are not recorded: the extreme analysis transforms the
        # code under test only (``extreme.discover``), and a return site costs compiling.
        self._returns_wanted = (
            (lambda _: True)
            if is_test_file is None
            else (lambda filename: not is_test_file(filename))
        )
        self._files: dict[str, bool] = {}
        self._table = shared_table()
        self._finder: InstrumentingFinder | None = None
        self._loaded: set[int] = set()  # module code from the loader, by identity
        self._always: CodeSet = {}
        self._import_depth = 0
        self._imports_watched = False  # reks's hook set for the imports under way
        self._read_kinds: dict[int, str] = {}  # by identity: see ``_read_kind``
        self._constant: dict[int, set[str]] = {}  # by identity: ``constant_names``
        self._notes = ReturnNotes(self._table.sites, self._table.codes, self.returns)
        # Lookup methods called by name, seen in the frames of marked functions.
        self.lookups.methods_seen = watchable
        self._methods = MethodSiteWatch(self.lookups)

    @property
    def records_returns(self) -> bool:  # type: ignore[override]
        """Whether every return was seen: code without markers returns unseen."""
        return not self._always

    def _project(self, filename: str) -> bool:
        wanted = self._files.get(filename)
        if wanted is None:
            wanted = self._files[filename] = self._is_project_file(filename)
        return wanted

    # -- what ran -------------------------------------------------------------------------

    def _read_kind(self, code: CodeType) -> str:
        """How the lookups of ``code`` are known: "none" (it has no lookup site), "constant"
        (``constant_names``), "watched" (its own frame is watched as it runs), or "any"
        (a generator's: conservatively, unless an import's hook saw it)."""
        key = identity(code)
        kind = self._read_kinds.get(key)
        if kind is None:
            if not self.lookups.sites(code):
                kind = "none"
            elif (names := constant_names(code)) is not None:
                kind = "constant"
                self._constant[key] = names
            else:
                kind = "watched" if returns_values(code) else "any"
            self._read_kinds[key] = kind
        return kind

    def _watched(self, group: tuple[CodeType, ...]) -> bool:
        """Whether the marker of ``group`` (a code object and its comprehensions, which run
        within its frame) is to watch its frame: one of them has sites that only running
        tells, and the frame's return ends its run (not a generator's)."""
        if not returns_values(group[0]):
            # Its comprehensions run within its frame, resumed at each ``next``: they
            # read conservatively too.
            for code in group:
                if self._read_kind(code) == "watched":
                    self._read_kinds[identity(code)] = "any"
            return False
        return any(self._read_kind(code) == "watched" for code in group)

    def _add_names(self, code: CodeType, names: set[str]) -> None:
        lookups = self.lookups
        found = lookups.names.setdefault(identity(code), set())
        if not names <= found:
            found |= names
            lookups.version += 1

    def _flush(self) -> None:
        """Move the marks set since the last flush into the current set, with what the
        lookups of the code that ran read (see the module's docstring)."""
        seen = self._seen
        watched = self._imports_watched
        for code in self._table.take():
            key = identity(code)
            seen[key] = code
            kind = self._read_kinds.get(key) or self._read_kind(code)
            if kind == "constant":
                self._add_names(code, self._constant[key])
            elif kind == "any" and not watched:
                self._add_names(code, {EVERY_NAME})
        seen.update(self._always)

    def take(self, restart: bool = True) -> CodeSet:
        self._flush()
        if restart:
            self._notes.next_test()
        return super().take(restart)

    # -- watching lookups -----------------------------------------------------------------

    def _watch_hook(self, until: FrameType | None) -> Callable[[FrameType, str, object], None]:
        """A profile hook seeing the lookup functions' calls (``ProfileTracer`` does the same
        among its other work) until ``until`` returns (None: until it is taken off)."""
        on_lookup, import_module = self.lookups.on_profiled_call, IMPORT_MODULE_CODE

        def hook(frame: FrameType, event: str, arg: object) -> None:
            if event == "c_call":
                if identity(arg) in LOOKUP_FUNCTIONS:
                    on_lookup(frame, arg)
            elif event == "return":
                if frame is until:
                    sys.setprofile(None)
            elif event == "call" and frame.f_code is import_module:
                on_lookup(frame.f_back, importlib.import_module)

        setattr(hook, WATCH_HOOK, True)
        return hook

    def _enter(self) -> Callable[[int], None]:
        """``ENTER_NAME`` while recording: mark, trace the caller's frame if its code
        calls lookup methods by name (``rts.method_sites``), and watch it unless a hook
        watches already (reks's: an import or an outer frame), or its code gave up
        (``EVERY_NAME``)."""
        hits, codes, names = self._table.hits, self._table.codes, self.lookups.names
        getprofile, setprofile, getframe = sys.getprofile, sys.setprofile, _getframe
        watch_hook, add_names = self._watch_hook, self._add_names
        method_offsets, watch_methods = self._methods.offsets, self._methods.watch
        # Marker index -> its code when that calls lookup methods by name, else None.
        methods_of: dict[int, CodeType | None] = {}

        def enter(index: int) -> None:
            hits[index] = 1
            group = codes[index] or ()
            if index not in methods_of:
                methods_of[index] = group[0] if group and method_offsets(group[0]) else None
            own = methods_of[index]
            if (
                own is not None
                and EVERY_NAME not in names.get(identity(own), ())
                and not watch_methods(getframe(1), own)
            ):
                add_names(own, {EVERY_NAME})  # another tool traces: nothing can be seen
            current = getprofile()
            if current is not None and getattr(current, WATCH_HOOK, False):
                return
            if all(EVERY_NAME in names.get(identity(code), ()) for code in group):
                return
            if current is not None:  # another tool's hook: nothing can be seen
                for code in group:
                    add_names(code, {EVERY_NAME})
                return
            setprofile(watch_hook(getframe(1)))

        return enter

    def _module_start(self, code: CodeType) -> None:
        self._flush()  # what ran so far belongs to the window around this import
        self._loaded.add(identity(code))
        self._open_module(code)
        self._seen[identity(code)] = code  # part of its own footprint, as on 3.12
        if self._finder is not None:
            self._import_depth += 1
            # Another tool's hook (a profiler) stays: nothing is seen (it may be a C
            # profiler's object, which ``sys.setprofile`` could not set back).
            if self._import_depth == 1 and sys.getprofile() is None:
                sys.setprofile(self._watch_hook(None))
                self._imports_watched = True

    def _module_end(self, code: CodeType) -> None:
        self._flush()
        if self._import_depth > 0:
            self._import_depth -= 1
            if self._import_depth == 0 and self._imports_watched:
                sys.setprofile(None)
                self._imports_watched = False
        self._close_module(code)

    def _on_exec(self, code: CodeType) -> None:
        """Project code about to run that the loader did not compile: every test from now
        on counts it as run; code made from a string reads what it spells (``read_lines``)."""
        self.read_lines.evaluated(code)
        if identity(code) in self._loaded or not self._project(code.co_filename):
            return
        for nested in _nested(code):
            self._always[identity(nested)] = nested
        if code.co_name == "<module>":  # under other values: ``rts.dead_runs``
            DEAD_RUNS.note(code, self._always)

    # -- life -----------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self._finder is not None

    def start(self) -> None:
        rewriter, pytest_rewrite = _assertion_rewriter()
        self._finder = InstrumentingFinder(
            self._table,
            self._project,
            self._module_start,
            self._module_end,
            rewriter,
            pytest_rewrite,
            self._watched,
            self._returns_wanted,
        )
        self._finder.install()
        setattr(builtins, ENTER_NAME, self._enter())
        self._notes.start()
        watch_exec(self._on_exec)
        # Project functions already alive were compiled without markers.
        for function in project_functions_alive(self._project):
            code = function.__code__
            if not _is_instrumented(code):
                for nested in _nested(code):
                    self._always[identity(nested)] = nested

    def stop(self) -> None:
        if self._finder is None:
            return
        watch_exec(None)
        setattr(builtins, ENTER_NAME, self._table.mark)
        self._methods.stop()
        self._notes.stop()
        self._finder.uninstall()
        self._finder = None
        if self._imports_watched:
            sys.setprofile(None)
            self._imports_watched = False
        self._import_depth = 0
