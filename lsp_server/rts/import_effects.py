"""Whether a module's top level may change state outside its own namespace when it runs.

``rts.import_statements`` lets an added ``from module import ...`` select only the tests
that would see the module start running, when the moment it runs is not seen. Calls are
not the only way a module's import reaches other modules: ``registry.ITEMS["x"] = 1``,
``other.FLAG = True`` or ``ITEMS += [...]`` (on a list taken from another module) change
what import-time code elsewhere reads, and that code may run between the new and the old
moment (a test importing the module anyway then sees a filled registry earlier). A module
whose top level only imports, defines and binds plain names changes nothing but its own
namespace; anything else counts as an effect (conservative: a ``for`` or ``with`` does).
A ``try`` whose every branch only imports and binds counts as binding only, as an ``if``
does: python-validators' ``eth_address.py`` imports the optional ``eth_hash`` in ``try``
and binds a flag in ``except ImportError:``; which branch runs depends on the installed
packages, which the environment fingerprint covers, and either binds only its own names.
Nor does such a ``try`` raise of its own when a handler catches ``ImportError`` and what
runs after the imports only imports or binds constants: its imports are judged at
selection as top-level ones are (``rts.quiet_modules``; a new module's ``try`` made every
importer run before).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from lsp_server.rts.bound_names import maybe_bound_in
from lsp_server.rts.purity import is_type_checking_block

if TYPE_CHECKING:  # ``rts.bindings`` is analysed before this is asked
    from lsp_server.rts.bindings import ModuleLayout
    from lsp_server.rts.file_units import FileUnits

# Statements that at most bind names of the namespace they run in (their values are the
# bindings' business: ``rts.bindings``); a class body runs in a namespace of its own.
_BINDING_ONLY = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.Pass)


def note_import_effects(result: FileUnits, tree: ast.Module, layout: ModuleLayout) -> None:
    """Sets what running the top level of ``tree`` may do besides binding names in
    ``result`` (the file's units)."""
    result.changes_only_own_namespace = changes_only_own_namespace(tree)
    result.may_raise_at_import = may_raise_at_import(tree, layout)


def changes_only_own_namespace(tree: ast.Module) -> bool:
    """Whether every top-level statement (and class body, and ``if`` branch) of ``tree``
    only imports, defines, binds plain names or is a constant expression (a docstring)."""
    return all(_binds_only(stmt) for stmt in tree.body)


def _binds_only(stmt: ast.stmt) -> bool:
    if isinstance(stmt, _BINDING_ONLY):
        return True
    if isinstance(stmt, ast.ClassDef):
        return all(_binds_only(s) for s in stmt.body)
    if isinstance(stmt, ast.If):
        return all(_binds_only(s) for s in (*stmt.body, *stmt.orelse))
    if isinstance(stmt, ast.Try):
        # ``try: import lib`` / ``except ImportError: lib = None``: whichever branches run
        # only import and bind (a handler's ``as`` name too); their calls are call sites.
        handled = (s for handler in stmt.handlers for s in handler.body)
        return all(_binds_only(s) for s in (*stmt.body, *handled, *stmt.orelse, *stmt.finalbody))
    if isinstance(stmt, ast.Expr):
        return isinstance(stmt.value, ast.Constant)
    if isinstance(stmt, ast.Assign):
        return all(_plain_target(t) for t in stmt.targets)
    if isinstance(stmt, ast.AnnAssign):
        return isinstance(stmt.target, ast.Name)
    return False  # augmented assignment (may mutate in place), del, loops, with...


def _plain_target(target: ast.expr) -> bool:
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_plain_target(e) for e in target.elts)
    return isinstance(target, ast.Name)


def may_raise_at_import(tree: ast.Module, layout: ModuleLayout) -> bool:
    """Whether running the top level of ``tree`` may raise, imports aside (their modules are
    judged at selection, ``rts.quiet_modules``): a binding that may raise left a
    ``<raises:...>`` marker (``class_frames.raising_markers``); a statement that binds
    nothing (a call, an ``if`` judged by no binding) counts as one that may."""
    if any(m.startswith("<raises:") for markers in layout.markers.values() for m in markers):
        return True
    bound_lines = {binding.start[0] for binding in layout.bindings}
    first_lines = [first_line(stmt) for stmt in tree.body]
    if len(set(first_lines)) < len(first_lines):
        return True  # a binding's span starts at its line: two statements share it
    if any(isinstance(stmt, ast.If) and not _never_runs(stmt) for stmt in tree.body):
        return True  # its imports are no top-level ones (``ImportStatement.top``)
    residue = [stmt for stmt in tree.body if first_line(stmt) not in bound_lines]
    tries = [stmt for stmt in residue if isinstance(stmt, ast.Try)]
    caught = _import_error_names(tries, tree)
    return not all(
        isinstance(stmt, (ast.Import, ast.ImportFrom))
        or _is_docstring(stmt)
        or (isinstance(stmt, ast.Try) and _optional_import(stmt, caught))
        for stmt in residue
    )


def _optional_import(stmt: ast.Try, caught: frozenset[str]) -> bool:
    """``try: import lib`` / ``except ImportError: FLAG = False``: raises nothing of its
    own (its imports are judged at selection as top-level ones, ``ImportStatement.tried``).
    Its body only imports; a handler catches ``ImportError`` (``ModuleNotFoundError`` alone
    misses ``from m import absent``); whichever branch runs after only imports or binds
    constants; no ``finally``."""
    if stmt.finalbody or not all(_imports_only(s) for s in stmt.body):
        return False
    if not any(_catches(handler.type, caught) for handler in stmt.handlers):
        return False
    after = [*(s for handler in stmt.handlers for s in handler.body), *stmt.orelse]
    return all(_imports_only(s) or _binds_a_constant(s) for s in after)


def _imports_only(stmt: ast.stmt) -> bool:
    return isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass))


def _binds_a_constant(stmt: ast.stmt) -> bool:
    """``FLAG = False``; not an annotated one: its annotation is evaluated (it may read a
    name nothing binds)."""
    return (
        isinstance(stmt, ast.Assign)
        and all(isinstance(t, ast.Name) for t in stmt.targets)
        and isinstance(stmt.value, ast.Constant)
    )


# A handler of one of these catches an ``ImportError``, unless the module rebinds the name.
_CATCHING_IMPORT_ERROR = frozenset({"ImportError", "Exception", "BaseException"})


def _import_error_names(tries: list[ast.Try], tree: ast.Module) -> frozenset[str]:
    """The names of ``_CATCHING_IMPORT_ERROR`` the module binds nowhere (``ImportError =
    KeyError`` makes a handler catch another class); computed only for a module with a
    top-level ``try``."""
    if not tries:
        return frozenset()
    return _CATCHING_IMPORT_ERROR - maybe_bound_in(tree.body)


def _catches(handler_type: ast.expr | None, caught: frozenset[str]) -> bool:
    if handler_type is None:
        return True  # a bare ``except:``
    if isinstance(handler_type, ast.Tuple):
        return any(_catches(e, caught) for e in handler_type.elts)
    return isinstance(handler_type, ast.Name) and handler_type.id in caught


def _never_runs(stmt: ast.If) -> bool:
    """``if TYPE_CHECKING:`` without ``else``: its body never runs."""
    return is_type_checking_block(stmt) and not stmt.orelse


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def first_line(stmt: ast.stmt) -> int:
    """Where a binding of the statement starts: its first decorator's line, if any."""
    decorators = getattr(stmt, "decorator_list", [])
    return min([stmt.lineno, *(d.lineno for d in decorators)])
