"""Lookup functions called from pytest's rewritten asserts. The rewriter keeps each
attribute it evaluates in a temporary local (``@py_assert1 = importlib.import_module``),
calls it from there (``@py_assert1(@py_assert3)``) and, on failure only, hands it to
``@pytest_ar._saferepr`` for the message: the lookup function is loaded for something
other than a call, which read the whole test conservatively (any name, and since
``rts.module_fetches`` any module of the session for ``import_module``).

A ``@py_assert`` local (no source spells that name) whose every load is called or
repr'd is a call site like any other: ``lookup_sites`` finds its calls here. Only on
3.12+, where the CALL event names the callable called (an older tracer tells a lookup
function only by its global name)."""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable

from lsp_server.rts.site_values import Source

_TEMPORARY = "@py_assert"
_REPRS = frozenset(["_saferepr"])


def assert_temporary(instructions: list[dis.Instruction], index: int) -> str | None:
    """The rewriter's local the attribute loaded at ``index`` is stored into, if any (on
    3.12+; see the module docstring)."""
    if sys.version_info < (3, 12) or index + 1 >= len(instructions):
        return None
    store = instructions[index + 1]
    if instructions[index].opname != "LOAD_ATTR" or store.opname != "STORE_FAST":
        return None
    name = str(store.argval)
    return name if name.startswith(_TEMPORARY) and not store.is_jump_target else None


Sites = dict[int, tuple[Source | None, ...]]
CallSite = Callable[[list[dis.Instruction], int], "tuple[int, Sites] | None"]


def temporary_sites(
    instructions: list[dis.Instruction], local: str, call_site: CallSite
) -> Sites | None:
    """The call sites of the rewriter's ``local``: every plain load of it a callee (its
    call found by ``call_site``) or the one argument of ``_saferepr``; else None. Its other
    stores (the rewriter clears it to None) store what some load checked here pushes; any
    other use of it (a combined load of 3.13) stays conservative."""
    sites: Sites = {}
    for index, ins in enumerate(instructions):
        uses = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)
        if local not in uses or ins.opcode not in dis.haslocal or ins.opname == "STORE_FAST":
            continue
        if ins.opname != "LOAD_FAST":
            return None
        if _repr_argument(instructions, index):
            continue
        found = call_site(instructions, index)
        if found is None:
            return None
        sites.update(found[1])
    return sites


def _repr_argument(instructions: list[dis.Instruction], index: int) -> bool:
    """Whether the load at ``index`` is the one argument of ``@pytest_ar._saferepr(...)``."""
    if index < 1 or index + 1 >= len(instructions):
        return False
    callee, call = instructions[index - 1], instructions[index + 1]
    return (
        callee.opname == "LOAD_ATTR"
        and callee.argval in _REPRS
        and call.opname == "CALL"
        and call.arg == 1
    )
