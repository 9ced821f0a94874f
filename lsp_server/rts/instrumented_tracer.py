"""The tracer of Python 3.10/3.11 when the project's modules are imported after recording
starts: they are compiled with markers (``rts.instrument_loader``), so no Python code runs
per call. An empty profile hook alone cost 1.6x plain pytest on toolz and 1.9x on sqlparse
(``bench/tracer_floor.py``); the markers cost what compiling them costs, and a store per
call.

What the markers cannot tell is recorded another way, or read conservatively:

- Import footprints: the loader's ``exec_module`` opens and closes each module's window.
- Lookups by a name held in a variable (``rts.runtime_lookups``): while a project module's
  top level runs (where registries are filled: toolz's signatures), a profile hook sees
  the lookup functions' calls as ``ProfileTracer`` does; code with lookup call sites that
  ran outside an import reads every name (``EVERY_NAME``), as before runtime lookups.
- Return kinds: none are recorded (``records_returns`` is False: the recorder then marks
  every test recorded so far as having no kinds, and the extreme analysis observes them).
- Code that was not compiled with markers (a project function alive before recording
  started, project code executed from elsewhere than the loader): counted as run by every
  test from then on (``_always``), a superset of what a hook would see.
- Generators and coroutines mark their code when first started, not at each resume (a
  profile hook sees every resume).
"""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Callable
from types import CodeType, FrameType, FunctionType
from typing import Any

from lsp_server.rts.audit_events import watch_exec
from lsp_server.rts.identity import identity
from lsp_server.rts.instrument_loader import HIT_NAME, HITS_NAME, InstrumentingFinder, shared_table
from lsp_server.rts.reads import EVERY_NAME
from lsp_server.rts.runtime_lookups import IMPORT_MODULE_CODE, LOOKUP_FUNCTIONS
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
    return HITS_NAME in code.co_names or HIT_NAME in code.co_names


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

    records_returns = False
    """No return kinds are recorded (``DependencyRecorder`` tells the store)."""

    def __init__(self, is_project_file: Callable[[str], bool]) -> None:
        super().__init__(is_project_file)
        self._is_project_file = is_project_file
        self._files: dict[str, bool] = {}
        self._table = shared_table()
        self._finder: InstrumentingFinder | None = None
        self._loaded: set[int] = set()  # module code from the loader, by identity
        self._always: CodeSet = {}
        self._import_depth = 0
        self._previous_profile: Any = None
        self._lookup_hook = self._import_hook()

    def _project(self, filename: str) -> bool:
        wanted = self._files.get(filename)
        if wanted is None:
            wanted = self._files[filename] = self._is_project_file(filename)
        return wanted

    # -- what ran -------------------------------------------------------------------------

    def _flush(self) -> None:
        """Move the marks set since the last flush into the current set; code with lookup
        call sites that ran with no hook watching reads every name."""
        seen = self._seen
        watched = self._import_depth > 0
        lookups = self.lookups
        for code in self._table.take():
            seen[identity(code)] = code
            if not watched and lookups.sites(code):
                names = lookups.names.setdefault(identity(code), set())
                if EVERY_NAME not in names:
                    names.add(EVERY_NAME)
                    lookups.version += 1
        seen.update(self._always)

    def take(self, restart: bool = True) -> CodeSet:
        self._flush()
        return super().take(restart)

    # -- imports --------------------------------------------------------------------------

    def _import_hook(self) -> Callable[[FrameType, str, object], None]:
        """The profile hook while a project module's top level runs: the lookup functions'
        calls only (``ProfileTracer`` does the same among its other work)."""
        on_lookup, import_module = self.lookups.on_profiled_call, IMPORT_MODULE_CODE

        def hook(frame: FrameType, event: str, arg: object) -> None:
            if event == "c_call":
                if identity(arg) in LOOKUP_FUNCTIONS:
                    on_lookup(frame, arg)
            elif event == "call" and frame.f_code is import_module:
                on_lookup(frame.f_back, importlib.import_module)

        return hook

    def _module_start(self, code: CodeType) -> None:
        self._flush()  # what ran so far belongs to the window around this import
        self._loaded.add(identity(code))
        self._open_module(code)
        self._seen[identity(code)] = code  # part of its own footprint, as on 3.12
        if self._finder is not None:
            self._import_depth += 1
            if self._import_depth == 1:
                self._previous_profile = sys.getprofile()
                sys.setprofile(self._lookup_hook)

    def _module_end(self, code: CodeType) -> None:
        self._flush()
        if self._import_depth > 0:
            self._import_depth -= 1
            if self._import_depth == 0:
                sys.setprofile(self._previous_profile)
        self._close_module(code)

    def _on_exec(self, code: CodeType) -> None:
        """Project code about to run that the loader did not compile: every test from now
        on counts it as run."""
        if identity(code) in self._loaded or not self._project(code.co_filename):
            return
        for nested in _nested(code):
            self._always[identity(nested)] = nested

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
        )
        self._finder.install()
        watch_exec(self._on_exec)
        # Project functions already alive were compiled without markers.
        for obj in gc.get_objects():
            if type(obj) is FunctionType and self._project(obj.__code__.co_filename):
                code = obj.__code__
                if not _is_instrumented(code):
                    for nested in _nested(code):
                        self._always[identity(nested)] = nested

    def stop(self) -> None:
        if self._finder is None:
            return
        watch_exec(None)
        self._finder.uninstall()
        self._finder = None
        if self._import_depth:
            sys.setprofile(self._previous_profile)
            self._import_depth = 0

