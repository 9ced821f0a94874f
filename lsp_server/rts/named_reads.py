"""Spellings of lookup names that read one name the code spells, not any name: they keep a
code object's other lookups by string recorded at run time (``rts.runtime_lookups``).

* ``obj.__dict__["name"]``: the constant is the name read, as ``getattr(obj, "name")``'s
  is (tinydb's ``Middleware.__getattr__``: ``getattr(self.__dict__['storage'], name)``);
* ``hasattr(obj.__dict__, "name")``: one attribute of the mapping checked, by the lookup
  call's constant (``checked_attribute``);
* ``sys.modules[key].attr``: a module found by name, of which the code reads the one
  attribute it spells (funcy's ``__init__``: ``sys.modules['funcy.' + m].__all__``);
* ``sys.modules.get("name")``, ``sys.modules["name"]``: the one module of a constant name
  (``constant_module``), as ``import_module("name")`` finds it: the test depends on it as
  on a module imported by name (``rts.runtime_lookups``), and reads the names of it the
  code spells (structlog's ``sys.modules.get("multiprocessing")``).

A namespace so spelled is a lookup call site only as the owner of a method called
(``obj.__dict__.get(name)``: the names it is handed); handed over to anything else (a
generator iterating it: ``(k for k in cls.__dict__)``) it may be listed whole
(``handed_over``).

The names so read are in the code's constants or attribute names, counted as read
(``rts.reads``), and are looked for in the modules the test depends on, as any name is.
"""

from __future__ import annotations

import dis
from types import CodeType

JUMPS = frozenset([*dis.hasjrel, *dis.hasjabs])


def constant_key(instructions: list[dis.Instruction], index: int) -> bool:
    """Whether the instruction at ``index`` loads an attribute (``__dict__``) only to
    subscript it with a constant string (``obj.__dict__["name"]``, to read, store or
    delete): that reads the one name, as ``getattr(obj, "name")`` does (the constant
    counts as a read: ``rts.reads``)."""
    if instructions[index].opname != "LOAD_ATTR" or index + 2 >= len(instructions):
        return False
    key, use = instructions[index + 1], instructions[index + 2]
    if key.opname != "LOAD_CONST" or not isinstance(key.argval, str) or key.is_jump_target:
        return False
    # 3.14 spells a subscript ``BINARY_OP []``; a store or delete takes the key from here too.
    subscript = use.opname == "BINARY_OP" and use.argrepr == "[]"
    return subscript or use.opname in ("BINARY_SUBSCR", "STORE_SUBSCR", "DELETE_SUBSCR")


def checked_attribute(instructions: list[dis.Instruction], index: int) -> bool:
    """Whether the instruction at ``index`` loads an attribute (``__dict__``) of a plain
    load only as the object of a ``hasattr`` or ``getattr`` by a constant name
    (``hasattr(obj.__dict__, "keys")``): that reads the one name of the mapping, recorded
    at the call as any constant lookup's (``rts.runtime_lookups``)."""
    if index < 2 or index + 2 >= len(instructions):
        return False
    callee, owner = instructions[index - 2], instructions[index - 1]
    key, call = instructions[index + 1], instructions[index + 2]
    if any(i.is_jump_target for i in (owner, instructions[index], key, call)):
        return False
    return (
        instructions[index].opname == "LOAD_ATTR"
        and callee.opname in ("LOAD_GLOBAL", "LOAD_NAME")
        and callee.argval in ("hasattr", "getattr")
        and owner.opname in _PLAIN_LOADS
        and key.opname == "LOAD_CONST"
        and isinstance(key.argval, str)
        and call.opname in ("CALL", "PRECALL", "CALL_FUNCTION")
        and call.arg == 2
    )


_PLAIN_LOADS = frozenset(["LOAD_FAST", "LOAD_DEREF", "LOAD_GLOBAL", "LOAD_NAME"])


def module_attribute(instructions: list[dis.Instruction], index: int) -> bool:
    """Whether the instruction at ``index`` loads an attribute (``sys.modules``) only to
    subscript it (with any key) and read one attribute of what it finds
    (``sys.modules["pkg." + m].__all__``): a module found by name, of which the code reads
    the one name it spells (counted as read: ``rts.reads``). Held or handed on, the module
    could have any name read: that stays a lookup."""
    if instructions[index].opname != "LOAD_ATTR":
        return False
    depth = 1  # the table
    for at in range(index + 1, len(instructions) - 1):
        ins = instructions[at]
        if ins.is_jump_target or ins.opcode in JUMPS:
            return False
        subscript = ins.opname == "BINARY_SUBSCR" or (
            ins.opname == "BINARY_OP" and ins.argrepr == "[]"
        )
        if subscript and depth == 2:  # the table and its key
            return instructions[at + 1].opname == "LOAD_ATTR"
        depth += dis.stack_effect(ins.opcode, ins.arg, jump=False)
        if depth < 2:
            return False  # the table was taken by something else
    return False


def reads_one_name(instructions: list[dis.Instruction], index: int) -> bool:
    """Whether the instruction at ``index`` spells ``__dict__`` or ``modules`` in one of
    the shapes above."""
    name = instructions[index].argval
    if name == "__dict__":
        return constant_key(instructions, index) or checked_attribute(instructions, index)
    return name == "modules" and module_attribute(instructions, index)


_METHOD_LOADS = frozenset(["LOAD_ATTR", "LOAD_METHOD"])


def handed_over(instructions: list[dis.Instruction], index: int) -> bool:
    """Whether the instruction at ``index`` loads ``__dict__`` or ``modules`` for anything
    but one of the shapes above or a call of one of its methods."""
    ins = instructions[index]
    if ins.argval not in ("__dict__", "modules") or ins.opcode not in dis.hasname:
        return False
    if reads_one_name(instructions, index):
        return False
    after = instructions[index + 1] if index + 1 < len(instructions) else None
    return after is None or after.opname not in _METHOD_LOADS


_SUBSCRIPTS = frozenset(["BINARY_SUBSCR", "BINARY_OP"])
_ONE_ARGUMENT_CALLS = frozenset(["CALL", "PRECALL", "CALL_METHOD"])


def constant_module(instructions: list[dis.Instruction], index: int) -> str | None:
    """The module name ``sys.modules.get("name")`` or a loaded ``sys.modules["name"]`` looks
    up, when the instruction at ``index`` loads ``sys.modules`` for one of them; else None.
    The value found is a module (or nothing): what the code does with it reads its names
    by attribute, as with an imported module; a store or any other use is not this."""
    ins = instructions[index]
    if ins.opname != "LOAD_ATTR" or ins.argval != "modules" or index < 1:
        return None
    owner = instructions[index - 1]
    if owner.opname not in ("LOAD_GLOBAL", "LOAD_NAME") or owner.argval != "sys":
        return None
    after = instructions[index + 1 : index + 4]
    if any(i.is_jump_target for i in after):
        return None
    if len(after) >= 2 and _string(after[0]) and _subscript(after[1]):
        return str(after[0].argval)
    method = len(after) == 3 and after[0].opname in _METHOD_LOADS and after[0].argval == "get"
    if method and _string(after[1]) and after[2].opname in _ONE_ARGUMENT_CALLS:
        return str(after[1].argval) if after[2].arg == 1 else None
    return None


def named_modules(code: CodeType) -> frozenset[str]:
    """Every module name ``code`` looks up in ``sys.modules`` (``constant_module``)."""
    if "modules" not in code.co_names:
        return frozenset()
    instructions = list(dis.get_instructions(code))
    found = (constant_module(instructions, i) for i in range(len(instructions)))
    return frozenset(name for name in found if name is not None)


def _string(ins: dis.Instruction) -> bool:
    return ins.opname == "LOAD_CONST" and isinstance(ins.argval, str)


def _subscript(ins: dis.Instruction) -> bool:
    # 3.14 spells a subscript ``BINARY_OP []``.
    return ins.opname in _SUBSCRIPTS and (ins.opname == "BINARY_SUBSCR" or ins.argrepr == "[]")
