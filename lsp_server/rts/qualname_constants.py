"""The string constants a code object holds only as its nested functions' qualified names.

Before 3.11 ``MAKE_FUNCTION`` takes a function's qualified name from the constant loaded
right after its code (``'TestA.test_other'``, ``'g.<locals>.f'``, a module's ``'f'``); from
3.11 the name is in the code object. Such a constant is no lookup by string, and read as
one it made every test of a class read every binding of its method names elsewhere.
"""

from __future__ import annotations

import dis
import sys
from collections import Counter
from types import CodeType

_LOAD_CONST = dis.opmap["LOAD_CONST"]
_MAKE_FUNCTION = dis.opmap["MAKE_FUNCTION"]
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]


def read_constants(code: CodeType) -> tuple[object, ...]:
    """``code.co_consts`` without the strings loaded only as a new function's qualified
    name (a constant also loaded anywhere else is kept: it may be a real lookup)."""
    consts = code.co_consts
    if sys.version_info >= (3, 11) or not any(isinstance(c, CodeType) for c in consts):
        return consts
    only_names = _qualname_indexes(code)
    if not only_names:
        return consts
    return tuple(c for index, c in enumerate(consts) if index not in only_names)


def _qualname_indexes(code: CodeType) -> set[int]:
    """Indexes of string constants whose every load is the name in ``LOAD_CONST code;
    LOAD_CONST name; MAKE_FUNCTION`` (3.10 bytecode: two bytes per instruction)."""
    consts, raw = code.co_consts, code.co_code
    loads: Counter[int] = Counter()
    as_name: Counter[int] = Counter()
    before: tuple[tuple[int, int], ...] = ()  # the last two (opcode, argument)
    extended = 0
    for index in range(0, len(raw), 2):
        opcode, arg = raw[index], raw[index + 1] | extended
        if opcode == _EXTENDED_ARG:
            extended = arg << 8
            continue
        extended = 0
        if opcode == _LOAD_CONST:
            loads[arg] += 1
        elif opcode == _MAKE_FUNCTION and len(before) == 2:
            (first_op, code_at), (second_op, name_at) = before
            if first_op == second_op == _LOAD_CONST and isinstance(consts[code_at], CodeType):
                as_name[name_at] += 1
        before = (*before[-1:], (opcode, arg))
    return {at for at, n in as_name.items() if isinstance(consts[at], str) and loads[at] == n}
