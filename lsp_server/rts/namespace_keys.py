"""String constants that are only the keys of a class namespace a function builds.

``meths = {"log": log}; meths["fatal"] = meths["critical"]; return type(name, bases,
meths)`` (structlog's ``_make_filtering_bound_logger``): each key binds a member of the
class ``type`` makes; none looks a name up. Counted as name reads (``rts.reads``), a method
of the same name added to any class of an imported module selected every importer.

The dict must be a local made by a dict display (a copy of a namespace, ``dict(vars(x))``,
is read by its keys), never captured by a closure, and every use of it must be a subscript
of it (reading back, storing, deleting: any key) or the namespace argument of
``type(name, bases, dict)``. What class creation itself reads runs as code of its own (the
bases' hooks, traced) or is spelled elsewhere (the bases). A constant is left out only when
every load of it is such a key; any shape not recognised keeps it a read.
"""

from __future__ import annotations

import dis
from types import CodeType

_SKIPPED = frozenset(["CACHE", "EXTENDED_ARG", "NOP"])
_SINGLE_LOADS = frozenset(["LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW"])
_DOUBLE_LOADS = frozenset(["LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW"])
_SUBSCRIPTS = frozenset(["BINARY_SUBSCR", "STORE_SUBSCR", "DELETE_SUBSCR"])
_DISPLAYS = frozenset(["BUILD_MAP", "BUILD_CONST_KEY_MAP"])
_CALLS = frozenset(["CALL", "CALL_FUNCTION", "PRECALL"])  # 3.11: PRECALL n; CALL n
_VALUE_LOADS = frozenset([*_SINGLE_LOADS, "LOAD_CONST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME"])
# Key expressions: each pushes one value (two for a double load) and pops only its operands.
_KEY_OPS = frozenset(
    [
        *_VALUE_LOADS,
        *_DOUBLE_LOADS,
        "LOAD_SMALL_INT",
        "FORMAT_VALUE",
        "FORMAT_SIMPLE",
        "FORMAT_WITH_SPEC",
        "CONVERT_VALUE",
        "BUILD_STRING",
        "BINARY_OP",
    ]
)
_JUMPS = frozenset([*dis.hasjrel, *dis.hasjabs])
# Code that can hand its locals to anything: no local is private to it.
_LOCALS_EXPOSED = frozenset(["locals", "vars", "exec", "eval"])

_Ops = list[dis.Instruction]


def without_namespace_keys(code: CodeType, constants: tuple[object, ...]) -> tuple[object, ...]:
    """``constants`` (of ``code``) without those loaded only as class namespace keys."""
    keys = namespace_key_constants(code)
    if not keys:
        return constants
    return tuple(c for c in constants if _const_key(c) not in keys)


def namespace_key_constants(code: CodeType) -> frozenset[object]:
    """The constants (strings, or key tuples of a display) ``code`` loads only as keys of
    class namespaces it hands to ``type``: they read no name."""
    names = code.co_names
    if "type" not in names or not _LOCALS_EXPOSED.isdisjoint(names):
        return frozenset()
    if not any(type(c) in (str, tuple) for c in code.co_consts):
        return frozenset()  # no key to leave out: skip reading the bytecode
    ops = [ins for ins in dis.get_instructions(code) if ins.opname not in _SKIPPED]
    keys: set[int] = set()  # indexes of the constant loads that are namespace keys
    for local in set(code.co_varnames) - set(code.co_cellvars):
        found = _namespace_keys(ops, local)
        if found is not None:
            keys |= found
    if not keys:
        return frozenset()
    loads: dict[object, list[int]] = {}
    for at, ins in enumerate(ops):
        if ins.opcode in dis.hasconst:
            loads.setdefault(_const_key(ins.argval), []).append(at)
    return frozenset(value for value, where in loads.items() if all(at in keys for at in where))


def _const_key(value: object) -> object:
    """Constants equal across types (``1 == 1.0 == True``) kept apart."""
    return (type(value), value)


def _namespace_keys(ops: _Ops, local: str) -> set[int] | None:
    """The constant loads that are keys of ``local``, when it is a namespace dict in the
    sense above; None when it is not (or may not be)."""
    keys: set[int] = set()
    used = False
    for at, ins in enumerate(ops):
        if ins.opname in ("STORE_FAST", "STORE_FAST_MAYBE_NULL") and ins.argval == local:
            display = _display_keys(ops, at)
            if display is None:
                return None
            keys |= display
        elif (ins.opname in _SINGLE_LOADS and ins.argval == local) or (
            ins.opname in _DOUBLE_LOADS and ins.argval.count(local) == 1
        ):
            depth = 1 if ins.opname in _SINGLE_LOADS or ins.argval[1] == local else 2
            use = _use(ops, at, depth)
            if use is None:
                return None
            keys |= use
            used = True
        elif (
            "FAST" in ins.opname
            and ins.opname != "DELETE_FAST"
            and (ins.argval == local or (isinstance(ins.argval, tuple) and local in ins.argval))
        ):
            return None  # any other instruction naming the local (a combined store...)
    return keys if used else None


def _display_keys(ops: _Ops, store: int) -> set[int] | None:
    """The constant key loads of the dict display stored at ``store``; None when what is
    stored there is not a dict display. Keys not recognised are left out (they stay
    reads)."""
    build = ops[store - 1] if store else None
    if build is None or build.opname not in _DISPLAYS or build.arg is None or build.is_jump_target:
        return None
    if build.opname == "BUILD_CONST_KEY_MAP":
        return {store - 2} if store >= 2 and ops[store - 2].opname == "LOAD_CONST" else set()
    first = store - 1 - 2 * build.arg  # BUILD_MAP n: key, value, key, value...
    pairs = ops[first : store - 1] if first >= 0 else []
    if len(pairs) != 2 * build.arg or any(
        ins.opname not in _VALUE_LOADS or ins.is_jump_target for ins in pairs
    ):
        return set()
    return {first + 2 * n for n in range(build.arg) if pairs[2 * n].opname == "LOAD_CONST"}


def _use(ops: _Ops, load: int, depth: int) -> set[int] | None:
    """How the dict loaded at ``load`` (``depth`` from the top of the stack) is used: as a
    subscript's container (the key load, when one constant, is returned) or as the last of
    three arguments of ``type``; None otherwise. Between the dict and its subscript only
    instructions that pop what they push on top of it may run (a key expression)."""
    for at in range(load + 1, len(ops)):
        ins = ops[at]
        if ins.is_jump_target or ins.opcode in _JUMPS:
            return None
        subscript = ins.opname in _SUBSCRIPTS or (ins.opname == "BINARY_OP" and ins.argrepr == "[]")
        if subscript and depth == 2:
            constant = at - 1 == load + 1 and ops[at - 1].opname == "LOAD_CONST"
            return {at - 1} if constant else set()
        if ins.opname in _CALLS and depth == 1 and at == load + 1:
            return set() if ins.arg == 3 and _calls_type(ops, load) else None
        if ins.opname not in _KEY_OPS or subscript:
            return None
        effect = dis.stack_effect(ins.opcode, ins.arg, jump=False)
        if depth - (1 - effect) < 1:
            return None  # it would pop the dict
        depth += effect
    return None


def _calls_type(ops: _Ops, last_argument: int) -> bool:
    """Whether the two arguments before ``last_argument`` follow a load of the global
    ``type`` (each argument is an expression adding one value: walking back, the stack
    first grows by two where the first argument starts)."""
    pushed = 0
    for at in range(last_argument - 1, 0, -1):
        ins = ops[at]
        if ins.is_jump_target or ins.opcode in _JUMPS:
            return False
        pushed += dis.stack_effect(ins.opcode, ins.arg, jump=False)
        if pushed == 2:
            callee = ops[at - 1]
            return callee.opname == "LOAD_GLOBAL" and callee.argval == "type"
    return False
