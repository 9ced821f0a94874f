"""Which code object each marker of a module compiled with markers
(``rts.instrument_loader``) stands for, read from the compiled code."""

from __future__ import annotations

import dis
import sys
from types import CodeType

HITS_NAME = "__reks_hits__"
HIT_NAME = "__reks_hit__"
ENTER_NAME = "__reks_enter__"
MARKER_NAMES = frozenset([HITS_NAME, HIT_NAME, ENTER_NAME])
_COMPREHENSIONS = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>"})

_LOAD_GLOBAL, _LOAD_NAME, _LOAD_CONST = (
    dis.opmap[n] for n in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_CONST")
)
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]
# 3.11+: LOAD_GLOBAL's low bit says whether it also pushes a NULL; the name index is above it.
_GLOBAL_SHIFT = 1 if sys.version_info >= (3, 11) else 0


def own_index(code: CodeType) -> int | None:
    """The index in ``code``'s own marker: the first int constant loaded after the first
    load of the marker's name, a few instructions in (read from the raw bytecode:
    ``dis.get_instructions`` decodes the whole code object first)."""
    names = code.co_names
    if MARKER_NAMES.isdisjoint(names):
        return None
    raw, extended, after_name = code.co_code, 0, False
    for at in range(0, len(raw), 2):
        op, arg = raw[at], raw[at + 1] | extended
        extended = arg << 8 if op == _EXTENDED_ARG else 0
        if op == _LOAD_GLOBAL:
            after_name = after_name or names[arg >> _GLOBAL_SHIFT] in MARKER_NAMES
        elif op == _LOAD_NAME:
            after_name = after_name or names[arg] in MARKER_NAMES
        elif after_name and op == _LOAD_CONST and type(code.co_consts[arg]) is int:
            return int(code.co_consts[arg])
    return None


def register_codes(module_code: CodeType, codes: list[tuple[CodeType, ...] | None]) -> None:
    """Tell ``codes`` (``HitTable.codes``) which code object each of ``module_code``'s
    markers stands for; a comprehension goes with the nearest marked code around it."""
    stack: list[tuple[CodeType, list[CodeType] | None]] = [(module_code, None)]
    while stack:
        code, owner = stack.pop()
        index = own_index(code) if code.co_name not in _COMPREHENSIONS else None
        group = owner
        if index is not None:
            group = [code]
            codes[index] = group  # type: ignore[call-overload]
        if owner is not None and (index is None or code.co_name == "<genexpr>"):
            # A generator expression is counted with its owner too: an empty one marks
            # nothing of its own, yet a profile hook sees it start.
            owner.append(code)
        stack.extend((c, group) for c in code.co_consts if type(c) is CodeType)
    # Lists while filling (comprehensions join their owner's); tuples once complete.
    for at, found in enumerate(codes):
        if isinstance(found, list):
            codes[at] = tuple(found)
