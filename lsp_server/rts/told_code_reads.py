"""Which code reads a test's code spelled were told as they ran (``rts.code_read_targets``),
and what they read.

A name of ``TOLD_BY_AUDIT`` or ``SOURCE_READS`` the test read is told when each code object
the test ran that spells it is told for it: ``__code__`` spelled as an attribute (the
audit event names the function, in the reader's frame), a source read called at its call
sites where the CALL event is seen (3.12+). A code object spelling one as a string is not
told (``getattr(inspect, "getsource")``, ``update_wrapper(g, f, ("__code__",))``: the read
may happen in library code, or anywhere the function is handed), but for ``__code__`` as
the name argument of the builtin ``getattr``/``hasattr`` (typeguard's ``getattr(f,
"__code__", None)``), which reads it in the caller's frame. A name looked up by a string
computed at run time, or a source read of an object not told (``UNTOLD``), is not told
either. The caller gives the names only the code the test ran read: a statement read at an
import, or code run at collection, keeps the wide reading.
"""

from __future__ import annotations

import dis
from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass, field
from types import CodeType

from lsp_server.rts.code_read_targets import (
    SOURCE_READS,
    TOLD,
    TOLD_BY_AUDIT,
    TOLDABLE,
    UNTOLD,
    CodeReads,
)
from lsp_server.rts.identity import identity
from lsp_server.rts.lookup_sites import call_site

_NAME_GETTERS = frozenset(["getattr", "hasattr"])


@dataclass
class ToldReads:
    """The ``TOLD`` twins of the names told, and what the code read: functions (by their
    code objects), functions whose shape only was read (by readers never widened:
    ``rts.code_shape_reads``) and files (absolute)."""

    twins: set[str] = field(default_factory=set)
    functions: dict[int, CodeType] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)
    shapes: dict[int, CodeType] = field(default_factory=dict)

    def read(self) -> tuple[Iterable[CodeType], set[str]]:
        """The code objects and the files read (``code_read_units.code_read_units``)."""
        return self.functions.values(), self.files


def told_reads(
    codes: Iterable[CodeType],
    names_of: Callable[[CodeType], Set[str]],
    reads: CodeReads,
    source_sites: Callable[[CodeType], frozenset[int] | None] | None,
    names: Set[str],
    shadowed: Callable[[CodeType], bool],
    module: CodeType | None = None,
) -> ToldReads:
    """What the code objects ``codes`` (what a test ran, ``names_of`` each: the names it
    reads wherever its lines ran) read, and which of the code-read names among ``names``
    (read by those code objects only) were told. ``source_sites``: None where source
    reads are not seen; ``shadowed``: whether a code object's module may bind ``getattr``
    to something else; ``module``: the module whose import ran ``codes`` (then only what
    they read while it was the innermost project module executing counts)."""
    found = ToldReads()
    told: dict[str, bool] = {}
    for code in codes:
        key = identity(code)
        read_names = TOLDABLE.intersection(names_of(code))
        if read_names:  # a code object only kept by identity reads no code: ``rts.reads``
            by = key if module is None else (identity(module), key)
            into = found.functions if key in reads.wide else found.shapes
            into.update(reads.functions.get(by, {}))
            found.files |= reads.sources.get(by, set())
        for name in reads.spelled(code, _spelled).union(read_names):
            if told.get(name, True):
                told[name] = reads.told(code, name, _is_told, source_sites, shadowed)
    untold_source = UNTOLD in found.files
    found.twins = {
        TOLD + name
        for name, ok in told.items()
        if ok and name in names and not (untold_source and name in SOURCE_READS)
    }
    return found


def may_read_code(
    code: CodeType, names_of: Callable[[CodeType], Set[str]], reads: CodeReads
) -> bool:
    """Whether ``told_reads`` may find anything in ``code``: it reads a code-read name
    where it runs, or spells one. Without either it adds no function or file read and
    tells no name, whatever the other code objects and ``names`` are."""
    return not TOLDABLE.isdisjoint(names_of(code)) or bool(reads.spelled(code, _spelled))


def _spelled(code: CodeType) -> frozenset[str]:
    """The code-read names ``code`` spells, as names or strings (a read by a string may
    count where its line ran only: ``rts.read_lines``)."""
    return frozenset(
        name for name in TOLDABLE if name in code.co_names or _holds(code.co_consts, name)
    )


def _is_told(
    code: CodeType,
    name: str,
    source_sites: Callable[[CodeType], frozenset[int] | None] | None,
    shadowed: Callable[[CodeType], bool],
) -> bool:
    if _holds(code.co_consts, name):
        return name in TOLD_BY_AUDIT and not shadowed(code) and _getattr_names_only(code, name)
    if name not in code.co_names:
        return False  # read by a name looked up at run time, not spelled here
    return name in TOLD_BY_AUDIT or (source_sites is not None and bool(source_sites(code)))


def _holds(constants: tuple[object, ...] | frozenset[object], name: str) -> bool:
    """Whether ``name`` is among ``constants``, or in a tuple or frozenset among them."""
    return any(
        value == name or (type(value) in (tuple, frozenset) and _holds(value, name))  # type: ignore[arg-type]
        for value in constants
        if type(value) in (str, tuple, frozenset)
    )


def _getattr_names_only(code: CodeType, name: str) -> bool:
    """Whether the string ``name`` is only ever the name argument of calls of ``getattr``
    or ``hasattr`` loaded as globals (the builtins: the caller checks the module binds
    neither), never in a tuple or handed anywhere else."""
    instructions = list(dis.get_instructions(code))
    loads = 0
    for ins in instructions:
        if ins.opcode not in dis.hasconst or type(ins.argval) not in (str, tuple, frozenset):
            continue
        if ins.argval == name:
            loads += 1
        elif type(ins.argval) is not str and _holds(ins.argval, name):
            return False  # a tuple of names: handed over whole
    calls = 0
    for index, ins in enumerate(instructions):
        if ins.opname == "LOAD_GLOBAL" and ins.argval in _NAME_GETTERS:
            found = call_site(instructions, index)
            arguments = () if found is None else found[1].get(found[0], ())
            if len(arguments) >= 2 and arguments[1] == ("const", name):
                calls += 1
    return calls == loads
