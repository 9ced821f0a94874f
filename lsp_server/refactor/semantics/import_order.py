"""An import placed after definitions stays after them.

A module that imports another only at its end, after its own definitions, usually does so
to break an import cycle: the other module imports names from this one, which must exist
by then. rope, adding an import to such a file, rewrites its import block and lifts the
late import to the top, and the package then fails to import (toolz's ``functoolz.py``
and ``_signatures.py``). A refactoring that moves an existing import above a definition
it followed is refused.
"""

from __future__ import annotations

import ast

from lsp_server.project.text import parse_python
from lsp_server.refactor.model import RefactoringError

_DEFINITION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _imports_with_definitions_before(text: str, path: str) -> list[tuple[str, set[str], int]]:
    """Each top-level import of ``text`` (as a dump), the names defined above it, its line."""
    try:
        tree = parse_python(text, path)
    except (SyntaxError, ValueError):
        return []
    defined: set[str] = set()
    out: list[tuple[str, set[str], int]] = []
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            out.append((ast.dump(statement), set(defined), statement.lineno))
        elif isinstance(statement, _DEFINITION):
            defined.add(statement.name)
    return out


def late_import_lines(text: str, path: str = "<module>") -> set[int]:
    """The first lines of the top-level imports of ``text`` that follow a definition."""
    return {line for _, defined, line in _imports_with_definitions_before(text, path) if defined}


def check_late_imports_kept(path: str, before: str, after: str, moved: str = "") -> None:
    """Refuse (``RefactoringError`` naming the place) an ``after`` text of ``path`` in which
    an import that followed definitions in ``before`` now comes before one of them
    (``moved``, a definition leaving the file, does not count)."""
    now = {dump: defined for dump, defined, _ in _imports_with_definitions_before(after, path)}
    for dump, defined, line in _imports_with_definitions_before(before, path):
        if not defined or dump not in now:
            continue
        lifted = sorted(defined - now[dump] - {moved})
        if lifted:
            raise RefactoringError(
                f"the refactoring engine would lift the late import on line {line} of {path} "
                f"above `{lifted[0]}`; an import placed after definitions usually breaks an "
                "import cycle, and moving it changes the order modules load in"
            )
