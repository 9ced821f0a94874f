"""Code reads that see a function's shape only: its parameters and local names, not where
it sits in its file.

A told read of ``f.__code__`` (``rts.code_read_targets``) shows f's own units and, since
any attribute of the code object may be read (``co_firstlineno``), every unit of its file
that may sit above f and any name added to that file (``rts.code_read_units``). Reads are
kept by reader over the session, so a reader that every test runs spreads that to every
test: pluggy's ``varnames`` reads ``func.__code__`` of each hook implementation registered
(the test files' nested plugin classes) for ``co_varnames[: co_argcount]``, and a one-line
edit of one test's body (pluggy d23f110) selected 111 of 144 tests, testmon 1.

A read of ``__code__`` by a plain attribute load (``shape_sites``) whose value is kept in a
fast local or read at once, where every load of that local is followed by the read of an
attribute in ``SHAPE_ATTRIBUTES``, sees what f's own text decides (its parameters, its
local names, its names), never a line number: no unit above f moves what it reads. A
reader all of whose reads were made at such sites (the audit event's frame tells the
instruction: ``CodeReads.on_attribute``) shows f's own units but their places
(``shape_units``). A read anywhere else (``getattr(f, name)``, a source read, the code
object returned, stored, passed, ``co_firstlineno``, ``co_consts``) keeps the wide reading
for every read of that reader.
"""

from __future__ import annotations

import dis
import functools
import sys
from types import CodeType

from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.unit_names import is_place

SHAPE_ATTRIBUTES = frozenset(
    [
        *("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals"),
        *("co_varnames", "co_name", "co_qualname"),
    ]
)
"""Attributes of a code object that its function's own text alone decides, no position
(its unit's name holds the enclosing names of ``co_qualname``). Not ``co_freevars``, which
the enclosing function's bindings decide, nor ``co_flags``, which a ``__future__`` import
at the module's top changes."""

_CODE = "__code__"
_LOCAL_LOADS = frozenset(["LOAD_FAST", "LOAD_FAST_CHECK"])


@functools.cache
def shape_sites(code: CodeType) -> frozenset[int]:
    """The offsets of the plain ``__code__`` loads of ``code`` whose value is read for its
    shape only (see the module docstring). Cached by content: equal code objects read
    alike."""
    instructions = list(dis.get_instructions(code))
    held: dict[str, list[int]] = {}
    sites: set[int] = set()
    for index, ins in enumerate(instructions[:-1]):
        if _plain_attribute(ins) and ins.argval == _CODE:
            after = instructions[index + 1]
            if after.opname == "STORE_FAST":
                held.setdefault(after.argval, []).append(ins.offset)
            elif _shape_attribute(after):
                sites.add(ins.offset)
    for holder, offsets in held.items():
        if _uses_shape_only(instructions, holder):
            sites.update(offsets)
    return frozenset(sites)


def _uses_shape_only(instructions: list[dis.Instruction], holder: str) -> bool:
    """Whether the fast local ``holder`` is only stored from a ``__code__`` read and only
    loaded to read a shape attribute (any other instruction naming it, a deletion, a
    comprehension's save, two locals at once, keeps the wide reading)."""
    for index, ins in enumerate(instructions):
        if ins.opcode not in dis.haslocal:
            continue
        if holder not in (ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)):
            continue
        if ins.opname == "STORE_FAST":
            before = instructions[index - 1] if index else None
            if before is None or not (_plain_attribute(before) and before.argval == _CODE):
                return False
        elif ins.opname in _LOCAL_LOADS:
            after = instructions[index + 1] if index + 1 < len(instructions) else None
            if after is None or not _shape_attribute(after):
                return False
        else:
            return False
    return True


def _plain_attribute(ins: dis.Instruction) -> bool:
    """An attribute load that replaces its object by the value (3.12+ flags a method load
    in ``arg``'s low bit: it pushes two)."""
    if ins.opname != "LOAD_ATTR":
        return False
    return sys.version_info < (3, 12) or not (ins.arg or 0) & 1


def _shape_attribute(ins: dis.Instruction) -> bool:
    return _plain_attribute(ins) and ins.argval in SHAPE_ATTRIBUTES


def shape_units(file_units: FileUnits, code: CodeType) -> list[str] | None:
    """The units of ``file_units`` a shape read of ``code`` (a function's) shows: the
    function's own units (nested functions' included) but their places; None when
    ``code`` is no function unit's (a module's code: told by the file only)."""
    unit = file_units.unit_for_code(code)
    if unit.name not in file_units.spans:
        return None
    own = unit.name + "."
    return [
        name
        for name in file_units.checksums
        if (name == unit.name or name.startswith(own)) and not is_place(name)
    ]
