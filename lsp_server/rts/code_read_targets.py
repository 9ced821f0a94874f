"""Which objects a test read code from, recorded as it runs.

A test whose code spells a code read (``lookups.BODY_READS``) sees every unit of its
modules' files (``rts.seen_bodies``): the syntax does not tell what was read. Two reads tell
it at run time:

- ``f.__code__``: CPython raises the audit event ``object.__getattr__`` with the function
  for every read of a function's ``__code__`` (a bound method's too), in the reader's
  frame. ``CodeReads.on_attribute`` keeps the code object read; ``rts.code_read_units``
  turns it into what it shows.
- ``inspect.getsource(obj)`` (``getsourcelines``, ``findsource``): on 3.12+ the
  ``sys.monitoring`` CALL event hands over ``obj`` at call sites where the function is the
  callee (``source_sites``): a module's source is its file; a class's, its module's file
  (found by parsing it); a function's or a method's, its code object's. Any other object
  (a frame, a code object, a ``__wrapped__`` chain) is not told (``UNTOLD``).

Reads are kept by reader, the code object that spelled them (``CodeReads``), over the
session: a test depends on what each code object it ran (or borrowed from a cache filler)
read, whichever test it read it in. A spelling is told where every code object spelling
it is told (``rts.told_code_reads``): ``__code__`` as an attribute or as the builtin
``getattr``'s constant name (the audit event is raised in the reader's frame), a source
read at its call sites. ``rts.code_read_marks`` marks the names told and not told, for a
test's window and for each module's import footprint; ``names_read.NamesRead.flags``
skips a code read told everywhere it was read.
"""

from __future__ import annotations

import dis
import inspect
import os
import sys
from collections.abc import Callable
from sys import _getframe
from types import CodeType, FrameType, FunctionType, MethodType, ModuleType
from typing import Any

from lsp_server.rts.code_shape_reads import shape_sites
from lsp_server.rts.identity import identity
from lsp_server.rts.lookup_sites import call_site

TOLD = "<told>"
"""A name prefixed so is a twin: the code read its spelling names was told at run time."""
UNTOLD_MARK = "<untold>"
"""A name prefixed so: its code read was not told somewhere (``rts.code_read_marks``)."""
TOLD_BY_AUDIT = frozenset(["__code__"])
"""Spellings whose reads the audit event tells, on every version."""
SOURCE_READS = frozenset(["getsource", "getsourcelines", "findsource"])
"""Spellings whose reads the CALL event tells (3.12+), at call sites only."""
TOLDABLE = TOLD_BY_AUDIT | SOURCE_READS
"""Every spelling of a code read that may be told as it runs."""
SOURCE_FUNCTIONS = frozenset(
    identity(f) for f in (inspect.getsource, inspect.getsourcelines, inspect.findsource)
)
UNTOLD = ""
"""Among the files whose source was read: an object whose source could not be told."""
_CALLEES = frozenset(["LOAD_GLOBAL", "LOAD_NAME", "LOAD_ATTR", "LOAD_METHOD"])


def source_sites(code: CodeType) -> frozenset[int] | None:
    """The offsets of the calls of ``code`` whose callee is spelled like a source read
    (``SOURCE_READS``); None when one is spelled otherwise (loaded and kept, stored,
    passed): its calls are not all seen."""
    if SOURCE_READS.isdisjoint(code.co_names):
        return frozenset()
    instructions = list(dis.get_instructions(code))
    offsets: set[int] = set()
    for index, ins in enumerate(instructions):
        if ins.argval not in SOURCE_READS or ins.opcode not in dis.hasname:
            continue
        found = call_site(instructions, index, keywords=True) if ins.opname in _CALLEES else None
        if found is None:
            return None
        offsets.update(found[1])
    return frozenset(offsets)


class CodeReads:
    """What each code object (the reader) read code of, over the session: the functions
    whose ``__code__`` it read, the files whose source it read (``UNTOLD``: an object not
    told). By reader: a superset of any one test's reads, as ``RuntimeLookups.names`` (a
    test depends on what each code it ran, or took a cached value or a filled container
    from, read, whichever test it read it in). By (module, reader) too: what it read while
    that project module was the innermost one executing, its import footprint's share
    (each module decorated by ``@typechecked`` reads its own functions and source)."""

    def __init__(
        self, is_reader: Callable[[CodeType], bool], is_project_file: Callable[[str], bool]
    ) -> None:
        self._is_reader = is_reader  # project code: only its spellings count
        self._is_project_file = is_project_file
        self.functions: dict[object, dict[int, CodeType]] = {}
        self.sources: dict[object, set[str]] = {}
        self._readers: dict[int, CodeType] = {}  # kept alive: an id stays a valid key
        self._spelled: dict[int, frozenset[str]] = {}
        self._told: dict[tuple[int, str], bool] = {}
        self._reading = False  # reading ``__code__`` here raises the event again
        self.wide: set[int] = set()
        """Readers (by identity) some read of which was no shape read
        (``rts.code_shape_reads``): what each of them read shows what sits above it."""
        self.version = 0
        """Grows whenever a reader reads something it had not, or its reads widen."""

    def on_attribute(self, obj: object) -> None:
        """``object.__getattr__`` audit event for ``obj.__code__``, raised in the frame
        that read it (below this method and the audit hook). Its module's ``__file__``
        tells library readers apart first: each ``frame.f_code`` raises an audit event
        too, and pytest and ``inspect`` read functions' code all the time."""
        if self._reading or type(obj) is not FunctionType:
            return
        frame = _getframe(2)
        filename = frame.f_globals.get("__file__")
        if isinstance(filename, str) and not self._is_project_file(filename):
            return
        reader = frame.f_code
        if self._is_reader(reader):
            if frame.f_lasti not in shape_sites(reader):  # the instruction reading it
                self._widen(reader)
            self._add(reader, frame, self._code_of(obj))

    def on_source_call(self, reader: CodeType, obj: object) -> None:
        """A source read (``SOURCE_FUNCTIONS``) about to be called by ``reader`` (the
        frame below the CALL callback) with ``obj``: a function's source is its code's."""
        frame = _getframe(2)
        self._widen(reader)
        if type(obj) is MethodType and not hasattr(obj, "__wrapped__"):
            obj = obj.__func__
        if type(obj) is FunctionType and not hasattr(obj, "__wrapped__"):
            self._add(reader, frame, self._code_of(obj))
            return
        module = obj if isinstance(obj, ModuleType) else None
        if module is None and isinstance(obj, type):
            module = sys.modules.get(getattr(obj, "__module__", ""))
        filename = getattr(module, "__file__", None)
        self._add(reader, frame, os.path.abspath(filename) if isinstance(filename, str) else UNTOLD)

    def spelled(
        self, code: CodeType, spelled_in: Callable[[CodeType], frozenset[str]]
    ) -> frozenset[str]:
        """``spelled_in(code)``, kept by identity over the session."""
        key = self._keep(code)
        found = self._spelled.get(key)
        if found is None:
            found = self._spelled[key] = spelled_in(code)
        return found

    def told(
        self,
        code: CodeType,
        name: str,
        is_told: Callable[[CodeType, str, Any, Any], bool],
        *context: Any,
    ) -> bool:
        """``is_told(code, name, *context)``, kept by identity over the session (the
        context, the session's, does not change)."""
        key = (self._keep(code), name)
        found = self._told.get(key)
        if found is None:
            found = self._told[key] = is_told(code, name, *context)
        return found

    def _code_of(self, function: FunctionType) -> CodeType:
        self._reading = True
        try:
            return function.__code__
        finally:
            self._reading = False

    def _add(self, reader: CodeType, frame: FrameType | None, read: CodeType | str) -> None:
        """Keep ``read`` (a code object, or a file) by ``reader`` and by (the innermost
        project module executing, ``reader``)."""
        keys: list[object] = [self._keep(reader)]
        while frame is not None:
            code = frame.f_code
            if code.co_name == "<module>" and self._is_reader(code):
                keys.append((self._keep(code), keys[0]))
                break
            frame = frame.f_back
        for key in keys:
            if isinstance(read, str):
                files = self.sources.setdefault(key, set())
                self.version += read not in files
                files.add(read)
            else:
                codes = self.functions.setdefault(key, {})
                self.version += identity(read) not in codes
                codes[identity(read)] = read

    def _widen(self, reader: CodeType) -> None:
        key = self._keep(reader)
        if key not in self.wide:
            self.wide.add(key)
            self.version += 1

    def _keep(self, reader: CodeType) -> int:
        key = identity(reader)
        self._readers[key] = reader
        return key
