"""Top-level imports of standard-library modules: bindings (``rts.bindings``), each name
one of its own. What a name takes (``from m import x``, ``import a.b``) is its unit's text,
not the whole statement's: tinydb 3517ddc0b6 added ``NoReturn`` and ``overload`` to ``from
typing import (...)``, and every name of the statement changed with them (the annotations
of every method read one: 205 of 205 tests selected)."""

from __future__ import annotations

import ast
import sys

# Standard-library modules whose import does something visible (prints, installs a hook,
# changes how the module compiles); the others only bind a name in the importer.
_EFFECTFUL_STDLIB = frozenset(
    ["__future__", "__main__", "this", "antigravity", "readline", "rlcompleter", "site"]
)


# Every standard-library module's top-level name (3.10+), and those importing binds only.
STDLIB_MODULES: frozenset[str] = frozenset(getattr(sys, "stdlib_module_names", ()))
STDLIB = STDLIB_MODULES - _EFFECTFUL_STDLIB


def stdlib_imports(stmt: ast.stmt) -> tuple[tuple[str, str], ...] | None:
    """Each name a top-level import of standard-library modules binds, with what it takes
    (``import a.b``, ``from m import x``, as in a statement of its own); None for any other
    import."""
    if isinstance(stmt, ast.Import):
        modules = [a.name for a in stmt.names]
        taken = [((a.asname or a.name).split(".")[0], f"import {a.name}") for a in stmt.names]
    elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
        modules = [stmt.module]
        taken = [(a.asname or a.name, f"from {stmt.module} import {a.name}") for a in stmt.names]
    else:
        return None
    if any(name == "*" for name, _ in taken) or any(m.split(".")[0] not in STDLIB for m in modules):
        return None
    return tuple(taken)
