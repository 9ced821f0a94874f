"""Kinds of the values functions return: recorded by ``pytest --reks`` next to the
dependencies (so that the extreme analysis can pick a function's transformations without
running its tests again) and by the extreme analysis's own observation run.

A kind is a short name for the exact type of a returned value (``bool`` is not ``int``
here); every value of any other type is "other".
"""

from __future__ import annotations

import dis
import types

KIND_BY_TYPE: dict[type, str] = {
    type(None): "none",
    bool: "bool",
    int: "int",
    float: "float",
    str: "str",
    bytes: "bytes",
    list: "list",
    dict: "dict",
    set: "set",
    frozenset: "frozenset",
    tuple: "tuple",
}
"""The kind of each exact type that has one of its own (``kind_of``)."""
RETURNS_PER_TEST = 32
"""Returns of one function whose kinds are recorded per test (on 3.12+ its return sites
are then disabled until the next test: a hot function would call back every time)."""
OTHER_KIND = "other"

NOT_RETURNING = 0x20 | 0x200
"""CO_GENERATOR | CO_ASYNC_GENERATOR: what their frames return says nothing."""
_RETURN_OPS = {dis.opmap[name] for name in ("RETURN_VALUE", "RETURN_CONST") if name in dis.opmap}
_RETURN_CONST = dis.opmap.get("RETURN_CONST")  # 3.12+


def kind_of(value: object) -> str:
    """The kind of a returned value (exact types only: a bool is not an int here)."""
    return KIND_BY_TYPE.get(type(value), OTHER_KIND)


def returns_values(code: types.CodeType) -> bool:
    """Whether what ``code``'s frames return is a result (not a generator's end)."""
    return not code.co_flags & NOT_RETURNING


def is_real_return(frame: types.FrameType, code: types.CodeType | None = None) -> bool:
    """For a profile hook's "return" event: the frame ran a return instruction (the hook
    also reports a "return" when an exception leaves the frame or a coroutine suspends).
    ``code``: the frame's, when the caller has it (each ``f_code`` raises an audit event)."""
    lasti = frame.f_lasti
    # A new bytes object at each read on 3.11: read once.
    instructions = (frame.f_code if code is None else code).co_code
    return 0 <= lasti < len(instructions) and instructions[lasti] in _RETURN_OPS


def constant_returns(code: types.CodeType) -> list[int]:
    """Byte offsets of ``code``'s instructions returning a constant (3.12+; none before):
    what they return always has the same kind."""
    if _RETURN_CONST is None:
        return []
    raw = code.co_code
    return [at for at in range(0, len(raw), 2) if raw[at] == _RETURN_CONST]
