"""The profile hook of Python 3.10/3.11 (``sys.setprofile`` and ``threading.setprofile``),
a ``CodeTracer`` (``rts.tracing``): it records the code of every Python call, the import
footprint of every module executed, what project functions return, and the builtin calls
of lookup functions (``rts.runtime_lookups``).

It runs on every call, return and builtin call of the whole process (toolz's suite: 28
million calls, 85 million events), so what it does per event is kept to a few lookups in
its closure; see ``ProfileTracer._hook``.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
from collections.abc import Callable, Iterator
from types import CodeType, FrameType

from lsp_server.rts.identity import identity
from lsp_server.rts.lookup_sites import IMPORT_MODULE_CODE, LOOKUP_FUNCTIONS
from lsp_server.rts.returns import RETURNS_PER_TEST, is_real_return, returns_values
from lsp_server.rts.tracing import CodeSet, CodeTracer


class ProfileTracer(CodeTracer):
    """A profile hook recording the code of every Python call (Python 3.10/3.11), and what
    project functions return."""

    def __init__(self, is_project_file: Callable[[str], bool] | None = None) -> None:
        super().__init__(is_project_file)
        # It sees no slot wrapper called (``object.__getattribute__``): a lookup method
        # called by name leaves its code's lookups unknown (``rts.runtime_lookups``).
        self.lookups.methods_seen = lambda _: False
        self._active = False
        self._is_project_file = is_project_file
        self._files: dict[str, bool] = {}
        # Frames whose return matters, by frame (see ``_hook``).
        self._awaited: dict[FrameType, CodeType] = {}
        # Code whose calls need no more than being remembered: not the project's, a
        # generator's, or (``_full``, until the next test) its returns recorded enough.
        self._quiet: CodeSet = {}
        self._full: list[int] = []
        self._profile = self._hook()

    def _hook(self) -> Callable[[FrameType, str, object], None]:
        """The hook runs on every call, return and builtin call of the whole process: it
        reads what it needs from its closure (no attribute lookups on the tracer), and the
        set it records into is rebound by ``_use``. Long because it is one function: a
        helper called per event would cost as much as the hook does.

        Each ``frame.f_code`` raises an audit event, a call of reks's audit hook in Python
        (``rts.audit_events``): the code is read once, at the call, and a frame whose return
        matters (module code closing its window, a project function's result) is kept in
        ``awaited`` until it returns; every other return is one failed ``dict.pop``. A
        generator's frame is handed in again at each resume, and its return (suspension)
        follows, so the entry never outlives its frame's run."""
        remember = self._seen.__setitem__
        windows, files, check = self._windows, self._files, self._is_project_file
        open_module, close_module = self._open_module, self._close_module
        record_return, counts = self._record_return, self._return_counts
        on_lookup, import_module = self.lookups.on_profiled_call, IMPORT_MODULE_CODE
        awaited, quiet, full = self._awaited, self._quiet, self._full
        await_return = awaited.__setitem__
        returned: Callable[[FrameType, None], CodeType | None] = awaited.pop

        def rebind(seen: CodeSet) -> None:
            nonlocal remember
            remember = seen.__setitem__

        def profile(frame: FrameType, event: str, arg: object) -> None:
            if event == "call":
                code = frame.f_code
                key = identity(code)
                remember(key, code)
                if key in quiet:  # nothing more to do at its call or its return
                    return
                if code.co_name == "<module>":
                    # Into its own window first, as ``sys.monitoring`` sees it: a module's
                    # code is part of its own import footprint (``rts.attribution``).
                    open_module(code)
                    await_return(frame, code)
                elif code is import_module:  # a Python function: its caller called it
                    on_lookup(frame.f_back, importlib.import_module)
                elif counts.get(key, 0) >= RETURNS_PER_TEST:
                    quiet[key] = code
                    full.append(key)
                else:
                    wanted = files.get(code.co_filename)
                    if wanted is None:
                        wanted = files[code.co_filename] = check is not None and check(
                            code.co_filename
                        )
                    if wanted and returns_values(code):
                        await_return(frame, code)
                    else:
                        quiet[key] = code  # kept alive: its identity stays its own
            elif event == "return":
                ended = returned(frame, None)
                if ended is None:
                    return
                if ended.co_name == "<module>":
                    if windows:
                        close_module(ended)
                    return
                # As many returns per function and test as PY_RETURN gives on 3.12+.
                key = identity(ended)
                count = counts.get(key, 0)
                if count < RETURNS_PER_TEST and is_real_return(frame, ended):
                    counts[key] = count + 1
                    record_return(ended, arg)
            elif event == "c_call" and identity(arg) in LOOKUP_FUNCTIONS:
                on_lookup(frame, arg)

        self._rebind = rebind
        return profile

    def _use(self, seen: CodeSet) -> None:
        self._seen = seen
        self._rebind(seen)

    def take(self, restart: bool = True) -> CodeSet:
        seen = super().take(restart)
        if restart:  # the next test records their returns again
            for key in self._full:
                self._quiet.pop(key, None)
            self._full.clear()
        return seen

    def reinstate(self) -> bool:
        """Python switches a profile hook off when it raises: a ``RecursionError`` once the
        hook's own call is one frame too deep. A test that profiles (``cProfile``) replaces
        it. Only this thread's hook is checked: the others' cannot be read."""
        if not self._active or sys.getprofile() is self._profile:
            return False
        sys.setprofile(self._profile)
        return True

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The hook off in this thread meanwhile: under it, reks's own analysis between
        two tests took longer than the tests (every call went through the hook)."""
        previous = sys.getprofile()
        sys.setprofile(None)
        try:
            yield
        finally:
            sys.setprofile(previous)

    @property
    def started(self) -> bool:
        return self._active

    def start(self) -> None:
        sys.setprofile(self._profile)
        threading.setprofile(self._profile)
        self._active = True

    def stop(self) -> None:
        sys.setprofile(None)
        threading.setprofile(None)
        self._active = False
        self._awaited.clear()  # frames still running now return unseen
