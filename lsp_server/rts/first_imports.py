"""Where a file first imports each project module: the text of its ``IMPORTING`` unit
(``rts.import_statements``).

A top-level ``from module import ...`` runs ``module`` where it stands, unless an earlier
statement of the file ran it already; later statements taking other names from it import
nothing. So what a test can see of these statements is where the first one stands: what
the file runs before it. The unit's text is that: the modules first imported before it,
in order, and a marker per other statement that runs code (a call, a decorator, a class
body, a plain import of a project module). A statement removed above another taking names
from the same module, with nothing run between them, leaves the text as it was (click's
``_termui_impl.py`` dropped ``from .utils import _KeepOpenFile`` just above ``from .utils
import echo``); a first import moved past a statement that runs code changes it, even when
no statement was added or removed (the module unit leaves import statements out).

Left out, because they run no code of the project that could see the module, nor can the
module see them: docstrings and other string statements, ``__future__`` and
standard-library imports (their order against the module is not recorded anywhere else
either), ``if TYPE_CHECKING:`` blocks without an ``else`` (never run), and assignments of
literals or of values computed from constants (``rts.constant_values``: pure builtins the
module did not rebind, called on constants, computed here; one that raises here raises at
import too, and stays a marker). more-itertools 7b2929c added ``__lazy_modules__ =
frozenset({'queue'})`` above its first import of ``recipes``: every test importing the
package ran.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from lsp_server.rts.from_imports import FromImport
from lsp_server.rts.import_scope import Scope
from lsp_server.rts.purity import is_string_statement, is_type_checking_block
from lsp_server.rts.stdlib_imports import STDLIB, stdlib_imports
from lsp_server.rts.unit_names import IMPORTING, importing_name

_CODE = "<code>"


def first_import_texts(tree: ast.Module, residue: Iterable[FromImport]) -> dict[str, list[str]]:
    """The text of each ``IMPORTING`` unit of a module: what runs before the first of
    ``residue`` (the module's ``from`` imports with units of their own) importing it."""
    by_start = {fi.hole[0]: fi for fi in residue}
    before: list[str] = []
    out: dict[str, list[str]] = {}
    if not by_start:
        return out
    last = max(by_start)
    # What the module bound before each statement: a constant's builtins not rebound.
    scope = Scope(tree, STDLIB)
    for stmt in tree.body:
        start = (stmt.lineno, stmt.col_offset)
        if start > last:
            break  # nothing after the last first import is in any text
        taken = by_start.get(start)
        if taken is None:
            marker = _runs_code(stmt, scope)
            if marker is not None:
                before.append(marker)
        else:
            unit = importing_name(taken.module, taken.level)
            if unit not in out:
                out[unit] = [IMPORTING, *before]
                before.append(unit)
        scope.after(stmt)
    return out


def _runs_code(stmt: ast.stmt, scope: Scope) -> str | None:
    """What ``stmt`` stands for in the texts of the imports after it: None when it runs
    no code that can see an import or be seen by it."""
    if is_string_statement(stmt) or _never_runs(stmt) or _literal_assignment(stmt):
        return None
    # Computed from constants: no project code, no effect (an annotation may be code).
    if isinstance(stmt, ast.Assign) and scope.computed(stmt):
        return None
    if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
        return None
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        if stdlib_imports(stmt) is not None:
            return None
        return ast.unparse(stmt)  # a project (or third-party) module run there
    return _CODE


def _never_runs(stmt: ast.stmt) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``) without an ``else``."""
    return is_type_checking_block(stmt) and not stmt.orelse


def _literal_assignment(stmt: ast.stmt) -> bool:
    """``NAME = <literal>``: binds a value no code computes."""
    if not isinstance(stmt, ast.Assign):  # an annotation may be evaluated: code
        return False
    if not all(isinstance(target, ast.Name) for target in stmt.targets):
        return False
    try:
        ast.literal_eval(stmt.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True
