"""The syntax side of ``rts.own_globals``: which functions look names up by a computed
string among their own module's globals only (a call ``globals()``, nothing else)."""

from __future__ import annotations

import ast

from lsp_server.rts.lookups import lookup_spellings, own_nodes

OWN_GLOBALS = "<globals>"
"""``FileUnits.dynamic``'s kind of a function looking names up in its module's globals only."""


def only_own_globals(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether every spelling of a lookup by string in ``function``'s own code (not its
    nested functions') is a call ``globals()``."""
    calls = {
        id(item.func)
        for item in own_nodes(function)
        if isinstance(item, ast.Call) and not item.args and not item.keywords
    }
    spelled = lookup_spellings(function)
    return bool(spelled) and all(
        isinstance(item, ast.Name) and item.id == "globals" and id(item) in calls
        for item in spelled
    )
