"""Whether code lists the loaded modules (``sys.modules``) or only asks it for one by name.

``sys.modules[name]``, ``sys.modules.get(name)``, ``name in sys.modules`` and a store or a
delete by key find one module (boltons' ``make_sentinel`` asks at every import, a package
gathering its ``__all__`` reads ``sys.modules["pkg." + m]``): other rules see those
(``rts.named_reads``, ``rts.no_lookups``). Looping over the table, copying it, counting it or
handing it to a call sees every module the session imported, which modules only another
test's file imports change (``rts.session_listings``). Told from the bytecode, each load of
an attribute ``modules`` with what follows it: a key made of loads and operators alone,
then a subscript; or at once an ``in`` test or a keyed method. Anything else lists."""

from __future__ import annotations

import dis
from types import CodeType

_KEYED_METHODS = frozenset(
    ["get", "pop", "setdefault", "__contains__", "__getitem__", "__setitem__", "__delitem__"]
)
_SUBSCRIPTS = frozenset(["BINARY_SUBSCR", "STORE_SUBSCR", "DELETE_SUBSCR"])
# What a key may be made of: loads, operators on them, an f-string.
_KEY_PARTS = frozenset(
    [
        "LOAD_FAST",
        "LOAD_FAST_CHECK",
        "LOAD_CONST",
        "LOAD_GLOBAL",
        "LOAD_NAME",
        "LOAD_DEREF",
        "LOAD_ATTR",
        "BINARY_OP",
        "FORMAT_VALUE",
        "BUILD_STRING",
    ]
)
_LONGEST_KEY = 20  # instructions: past that, taken as a listing


def lists_modules(code: CodeType) -> bool:
    """Whether ``code`` reads an attribute ``modules`` other than by key (see above)."""
    instructions = [ins for ins in dis.get_instructions(code) if ins.opname != "PRECALL"]
    for at, ins in enumerate(instructions):
        if ins.argval != "modules" or ins.opcode not in dis.hasname:
            continue
        if ins.opname in ("STORE_ATTR", "DELETE_ATTR", "LOAD_GLOBAL", "LOAD_NAME"):
            continue  # binds no table; a global so named is read by ``rts.reads`` apart
        if ins.opname != "LOAD_ATTR" or _loads_method(ins):
            return True  # imported (``from sys import modules``), or called
        if not _by_key(instructions[at + 1 : at + 1 + _LONGEST_KEY]):
            return True
    return False


def _loads_method(ins: dis.Instruction) -> bool:
    """A 3.12 ``LOAD_ATTR`` that loads a method to call (its low bit: it pushes two)."""
    return bool(ins.arg) and dis.stack_effect(ins.opcode, ins.arg, jump=False) == 1


def _by_key(following: list[dis.Instruction]) -> bool:
    """Whether the table just loaded is only asked for a key by ``following``."""
    if not following:
        return False
    first = following[0]
    if first.opname == "CONTAINS_OP":
        return True
    if first.opname in ("LOAD_ATTR", "LOAD_METHOD") and first.argval in _KEYED_METHODS:
        return True
    above = 0  # values pushed above the table
    for ins in following:
        if ins.opname in _SUBSCRIPTS:
            return above == 1
        if ins.opname not in _KEY_PARTS:
            return False
        above += dis.stack_effect(ins.opcode, ins.arg, jump=False)
        if above <= 0:
            return False  # an operator took the table itself
    return False
