"""Whether code lists the loaded modules (``sys.modules``) or only asks it for one by name.

``sys.modules[name]``, ``sys.modules.get(name)``, ``name in sys.modules`` and a store or a
delete by key find one module (boltons' ``make_sentinel`` asks at every import, a package
gathering its ``__all__`` reads ``sys.modules["pkg." + m]``): other rules see those
(``rts.named_reads``, ``rts.no_lookups``). Looping over the table, copying it, counting it or
handing it to a call sees every module the session imported, which modules only another
test's file imports change (``rts.session_listings``). Told from the bytecode, each load of
an attribute ``modules`` with what follows it: a key made of loads and operators alone,
then a subscript; or at once an ``in`` test or a keyed method. Anything else lists.

Asking whether a module is there (``name in sys.modules``, ``.get(name)``,
``.__contains__(name)``, and ``.pop(name)``, ``.setdefault(name, d)`` whose answer is used:
``asks_presence``) sees what decides that: which modules every
file imported so far imports, another test's file among them (sel36d: ``other.py``
starting to import ``gamma`` made ``"gamma" in sys.modules`` true in a test that never ran
``other``). That is a listing too, unless the key is told as the ask runs
(``presence_sites``, ``rts.module_presence``). A subscript (``sys.modules[name]``, ``del``)
raises when the module is not there, an ask all the same, but is left a keyed read: as
asks, funcy's ``__init__`` (``sys.modules['funcy.' + m].__all__``) and typeguard's
``sys.modules[f.__module__]`` made every importer a listing (README, Limits)."""

from __future__ import annotations

import dis
import sys
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


# Keyed methods whose answer tells whether the entry is there: ``pop`` and ``setdefault``
# answer the module or the default (or raise), as ``get`` does, and change the table too;
# a cleanup dropping their answer (``sys.modules.pop(name, None)``) asks nothing.
_PRESENCE_METHODS = frozenset(["get", "__contains__", "pop", "setdefault"])
_CHANGING_METHODS = frozenset(["pop", "setdefault"])
_KEY_LOADS = {
    "LOAD_CONST": "const",
    "LOAD_FAST": "local",
    "LOAD_FAST_CHECK": "local",
    "LOAD_DEREF": "local",
    "LOAD_NAME": "name",
    "LOAD_GLOBAL": "global",
}
PresenceSite = tuple[tuple[str, object], tuple[str, object]]
"""The shapes of an ask's key and of the owner of ``modules`` (``keyed_reads.key_value``)."""


def _asks_at(instructions: list[dis.Instruction], at: int) -> bool:
    """Whether the instruction at ``at`` loads an attribute ``modules`` to ask it whether
    a key is there."""
    ins = instructions[at]
    if ins.opname != "LOAD_ATTR" or ins.argval != "modules" or at + 1 >= len(instructions):
        return False
    after = instructions[at + 1]
    method = after.opname in ("LOAD_ATTR", "LOAD_METHOD") and after.argval in _PRESENCE_METHODS
    if method and after.argval in _CHANGING_METHODS:
        call = next((i for i in instructions[at + 2 : at + 8] if i.opname == "CALL"), None)
        taken = None if call is None else instructions[instructions.index(call) + 1 :][:1]
        return not (taken and taken[0].opname == "POP_TOP")
    return method or after.opname == "CONTAINS_OP"


def _without_precalls(code: CodeType) -> list[dis.Instruction]:
    return [ins for ins in dis.get_instructions(code) if ins.opname != "PRECALL"]


def asks_presence(code: CodeType) -> bool:
    """Whether ``code`` asks a table ``modules`` whether a key is there (see above)."""
    if "modules" not in code.co_names:
        return False
    instructions = _without_precalls(code)
    return any(_asks(code, instructions, at) for at in range(len(instructions)))


def _asks(code: CodeType, instructions: list[dis.Instruction], at: int) -> bool:
    """Whether the instruction at ``at`` asks whether a module is there, not knowing: a
    module's top level asking about its own entry (``this = sys.modules[__name__]``) knows,
    as the import system put the module there before running it (``__name__`` not rebound
    by the module)."""
    if not _asks_at(instructions, at):
        return False
    if code.co_name != "<module>" or at < 1:
        return True
    found = _site(instructions, at)
    if found is None or found[1] != (("name", "__name__"), ("name", "sys")):
        return True
    return any(ins.opname == "STORE_NAME" and ins.argval == "__name__" for ins in instructions)


def presence_sites(code: CodeType) -> dict[int, PresenceSite] | None:
    """By the offset of the instruction taking the answer (``CONTAINS_OP``, the method's
    ``CALL``): the shapes of each ask's key and table owner, both plain loads, the key
    loaded right before that instruction or before the table (nothing runs in between
    that could rebind it). None when an ask is of another shape: it stays a listing."""
    instructions = _without_precalls(code)
    sites: dict[int, PresenceSite] = {}
    for at in range(1, len(instructions)):
        if not _asks(code, instructions, at):
            continue
        found = _site(instructions, at)
        if found is None:
            return None
        sites[found[0]] = found[1]
    return sites


def _site(instructions: list[dis.Instruction], at: int) -> tuple[int, PresenceSite] | None:
    owner = _plain_load(instructions[at - 1])
    if instructions[at + 1].opname == "CONTAINS_OP":  # key, owner, modules, CONTAINS_OP
        key = _plain_load(instructions[at - 2]) if at >= 2 else None
        straight, taker = instructions[at - 1 : at + 2], instructions[at + 1]
    else:  # owner, modules, method, key, [a constant default], CALL
        rest = instructions[at + 2 : at + 5]
        key = _plain_load(rest[0]) if rest else None
        extra = int(len(rest) > 1 and rest[1].opname == "LOAD_CONST")
        taker = rest[1 + extra] if len(rest) > 1 + extra else instructions[at]
        if taker.opname != "CALL" or taker.arg != 1 + extra:
            return None
        straight = instructions[at : at + 4 + extra]
    if owner is None or key is None or any(ins.is_jump_target for ins in straight):
        return None
    return taker.offset, (key, owner)


def _plain_load(ins: dis.Instruction) -> tuple[str, object] | None:
    kind = _KEY_LOADS.get(ins.opname)
    if kind is None or (kind == "global" and (ins.arg or 0) & 1 and sys.version_info >= (3, 11)):
        return None  # a global pushed with a NULL is a callee
    return kind, ins.argval
