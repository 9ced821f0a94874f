"""Which objects a test read code from, recorded as it runs.

A test whose code spells a code read (``lookups.BODY_READS``) sees every unit of its
modules' files (``rts.seen_bodies``): the syntax does not tell what was read. Two reads tell
it at run time:

- ``f.__code__``: CPython raises the audit event ``object.__getattr__`` with the function
  for every read of a function's ``__code__``, whoever reads it (``getattr(f, "__code__")``,
  a bound method's, ``inspect`` and ``dis`` reading it for ``getsource(f)``, ``dis(f)``).
  ``CodeReads.on_attribute`` keeps the code object read; ``rts.code_read_units`` turns it
  into what it shows.
- ``inspect.getsource(obj)`` (``getsourcelines``, ``findsource``): on 3.12+ the
  ``sys.monitoring`` CALL event hands over ``obj`` at call sites where the function is the
  callee (``source_sites``): a module's source is its file; a class's, its module's file
  (found by parsing it); a function's or a method's is read through its ``__code__``,
  already seen. Any other object (a frame, a code object, a ``__wrapped__`` chain) is not
  told (``UNTOLD``).

A spelling is told only for the code that ran in the test's own window (``rts.attribution``
adds a ``TOLD`` twin of the name; ``names_read.NamesRead.flags`` then skips the name): what
ran at an import or at collection read code in another window, and keeps the wide reading.
"""

from __future__ import annotations

import dis
import inspect
import os
import sys
from types import CodeType, FunctionType, MethodType, ModuleType

from lsp_server.rts.identity import identity
from lsp_server.rts.lookup_sites import call_site

TOLD = "<told>"
"""A name prefixed so is a twin: the code read its spelling names was told at run time."""
TOLD_BY_AUDIT = frozenset(["__code__"])
"""Spellings whose reads the audit event tells, on every version."""
SOURCE_READS = frozenset(["getsource", "getsourcelines", "findsource"])
"""Spellings whose reads the CALL event tells (3.12+), at call sites only."""
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
    """The code objects whose ``__code__`` was read and the files whose source was read
    since the last ``take``."""

    def __init__(self) -> None:
        self._functions: dict[int, CodeType] = {}
        self._sources: set[str] = set()
        self._reading = False  # reading ``__code__`` here raises the event again

    def on_attribute(self, obj: object) -> None:
        """``object.__getattr__`` audit event for ``obj.__code__``."""
        if self._reading or type(obj) is not FunctionType:
            return
        self._reading = True
        try:
            code = obj.__code__
        finally:
            self._reading = False
        self._functions[identity(code)] = code

    def on_source_call(self, obj: object) -> None:
        """A source read (``SOURCE_FUNCTIONS``) about to be called with ``obj``."""
        if type(obj) in (FunctionType, MethodType) and not hasattr(obj, "__wrapped__"):
            return  # read through its ``__code__``: ``on_attribute``
        module = obj if isinstance(obj, ModuleType) else None
        if module is None and isinstance(obj, type):
            module = sys.modules.get(getattr(obj, "__module__", ""))
        filename = getattr(module, "__file__", None)
        self._sources.add(os.path.abspath(filename) if isinstance(filename, str) else UNTOLD)

    def take(self) -> tuple[dict[int, CodeType], set[str]]:
        taken = self._functions, self._sources
        self._functions, self._sources = {}, set()
        return taken
