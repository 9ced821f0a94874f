"""``name = getattr(module, "attr", _fallback)`` at import: the builtin looks ``attr`` up on
``module`` and returns ``_fallback`` when it is missing, never calling it nor reading
anything of it. So the fallback is handed to no library code there (``rts.seen_bodies``
makes every importer depend on the body and docstring of what a call site of the module
unit reads): itsdangerous c96e82d4 fixed a typo in the docstring of
``_compat._constant_time_compare``, the fallback of ``constant_time_compare =
getattr(hmac, "compare_digest", ...)``, and all 417 tests ran (pytest-testmon: 3). A test
that calls the name runs the fallback when it was returned, and depends on its body then.

Only the plain shape counts: one statement assigning the call to names, the builtin
``getattr`` (the module binds no ``getattr`` anywhere), a constant attribute name and a
plain name as the fallback that the statement reads nowhere else.
"""

from __future__ import annotations

import ast

from lsp_server.rts.bound_names import binding_occurrences


def rebinds_getattr(tree: ast.Module) -> bool:
    """Whether anything in the module may bind ``getattr`` (then a call of it is not the
    builtin's)."""
    return "getattr" in binding_occurrences(tree)


def unhanded_fallbacks(stmt: ast.AST, getattr_rebound: bool) -> set[str]:
    """The name ``stmt`` reads only as the fallback of the builtin ``getattr`` it assigns
    (``name = getattr(obj, "attr", fallback)``); empty for any other statement."""
    if getattr_rebound or not isinstance(stmt, ast.Assign):
        return set()
    if not all(isinstance(target, ast.Name) for target in stmt.targets):
        return set()
    call = stmt.value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "getattr"
        and not call.keywords
        and len(call.args) == 3
        and isinstance(call.args[1], ast.Constant)
        and isinstance(call.args[1].value, str)
        and isinstance(fallback := call.args[2], ast.Name)
    ):
        return set()
    elsewhere = {node.id for node in ast.walk(call.args[0]) if isinstance(node, ast.Name)}
    return set() if fallback.id in elsewhere else {fallback.id}
