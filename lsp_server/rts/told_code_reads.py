"""Which code reads a test's code spelled were told as they ran (``rts.code_read_targets``),
and what they read.

A name of ``TOLD_BY_AUDIT`` or ``SOURCE_READS`` the test read is told when each code object
the test ran that spells it is told for it: ``__code__`` spelled as an attribute (the
audit event names the function, in the reader's frame), a source read called at its call
sites where the CALL event is seen (3.12+). A code object spelling one as a string
(``getattr(f, "__code__")``, ``getattr(inspect, "getsource")``) is not told: the read may
happen in library code, or anywhere the function is handed. A name looked up by a string
computed at run time, or a source read of an object not told (``UNTOLD``), is not told
either. The caller gives the names only the code the test ran read: a statement read at an
import, or code run at collection, keeps the wide reading.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass, field
from types import CodeType

from lsp_server.rts.code_read_targets import (
    SOURCE_READS,
    TOLD,
    TOLD_BY_AUDIT,
    UNTOLD,
    CodeReads,
)
from lsp_server.rts.identity import identity

_TOLDABLE = TOLD_BY_AUDIT | SOURCE_READS


@dataclass
class ToldReads:
    """The ``TOLD`` twins of the names told, and what the code read: functions (by their
    code objects) and files (absolute)."""

    twins: set[str] = field(default_factory=set)
    functions: dict[int, CodeType] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)

    def read(self) -> tuple[Iterable[CodeType], set[str]]:
        """The code objects and the files read (``code_read_units.code_read_units``)."""
        return self.functions.values(), self.files


def told_reads(
    codes: Iterable[CodeType],
    names_of: Callable[[CodeType], Set[str]],
    reads: CodeReads,
    source_sites: Callable[[CodeType], frozenset[int] | None] | None,
    names: Set[str],
) -> ToldReads:
    """What the code objects ``codes`` (what a test ran, ``names_of`` each: the names it
    reads) read, and which of the code-read names among ``names`` (read by those code
    objects only) were told. ``source_sites``: None where source reads are not seen."""
    found = ToldReads()
    told: dict[str, bool] = {}
    for code in codes:
        key = identity(code)
        found.functions.update(reads.functions.get(key, {}))
        found.files |= reads.sources.get(key, set())
        for name in _TOLDABLE.intersection(code.co_names).union(_TOLDABLE & names_of(code)):
            told[name] = told.get(name, True) and _is_told(code, name, source_sites)
    untold_source = UNTOLD in found.files
    found.twins = {
        TOLD + name
        for name, ok in told.items()
        if ok and name in names and not (untold_source and name in SOURCE_READS)
    }
    return found


def _is_told(
    code: CodeType, name: str, source_sites: Callable[[CodeType], frozenset[int] | None] | None
) -> bool:
    if name not in code.co_names or name in code.co_consts:
        return False
    if name in TOLD_BY_AUDIT:
        return True
    return source_sites is not None and bool(source_sites(code))
