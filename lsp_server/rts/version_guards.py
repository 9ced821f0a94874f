"""Top-level ``if`` blocks whose condition the environment fingerprint decides: the branch
that runs is code of the module like any top-level statement, the other is dead code.

``if sys.version_info >= (3, 11): from typing import Required`` / ``else: from
typing_extensions import Required`` runs one branch for a given interpreter and platform.
Which one is decided by the condition alone, and the condition only reads what
``rts.fingerprint`` pins (the Python version and build, hence the platform): the
interpreter that records a test is the one that selects it, and the analysis runs in it
(the analysis cache is kept per Python, ``rts.analysis_cache``). So the condition is
evaluated here, and the module analysed as if the statements of the branch that ran stood
at its top level: a binding there is a binding unit (``rts.bindings``), a statement with
effects stays in the module unit. The branch not taken runs for no importer: its text is
left out of the module unit and of every binding, so editing it selects no importer
(typeguard 5b4e934 added ``Required`` to both branches of such a block: every test ran).

Dead for the import only: a test that patches ``sys.version_info`` (or ``sys.platform``)
and reloads the module runs the other branch, and compatibility code is tested that way.
So the branches not taken are one unit of their own, ``DEAD`` (one per file, not per
guard: a test running the module under other values may take any of them, and it cannot
be told which without evaluating every condition again under those values). A test
depends on it when the module's code ran while a value the conditions read was not the
process's own (``rts.dead_runs``), when it started a process while the module was loaded
(the child may be another interpreter: ``rts.process_starts``), or when it read the file's
source (``rts.code_read_units`` takes every unit of the file). A function of a dead branch
is the code of no unit of its own (the live one of the same name, or the module part), but
only such a run made it, and the marker of that run is part of the module's import
footprint: whoever calls it later depends on the module, hence on ``DEAD``.

The guard's own text (``if``/``elif`` with the condition, ``else``) and a marker telling
which branch ran are the ``DEAD`` unit's, not the module unit's: evaluating such a
condition does nothing and cannot fail, and for an importer run natively the module is the
branch that runs, whose statements are units of their own (a changed condition that runs
another branch changes those; typeguard 2fde422 and 1cd7638 each added a guard binding one
name: every test reran). Who runs the module under other values, starts a process or reads
the source depends on ``DEAD``, which exists wherever a guard does. Only conditions
made of constants and ``sys.version_info``, ``sys.hexversion``, ``sys.platform``,
``os.name`` (read through the ``sys``/``os`` modules or names imported from them) are
evaluated; any other ``if`` stays one statement of the module unit.

``if TYPE_CHECKING:`` (``typing.TYPE_CHECKING``, or the name imported from ``typing``) is
such a guard too: ``False`` in every process, so its body is dead and its ``else`` runs.
marshmallow b1418d26 changed ``SchemaType = typing.Type[Schema]`` to ``type[Schema]`` in
``class_registry``'s block; ``register``'s header names ``SchemaType`` in a string
annotation, every test depended on the block's binding unit, and all 1,231 ran. A test
reloading a module with ``typing.TYPE_CHECKING`` patched runs the body: ``rts.dead_runs``
compares that value too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.import_scope import Scope
from lsp_server.rts.stdlib_imports import STDLIB
from lsp_server.rts.stdlib_queries import query_value
from lsp_server.rts.stdlib_values import MISSING
from lsp_server.rts.tokens import TokenText, digest
from lsp_server.rts.unit_names import DEAD

Pos = tuple[int, int]

# What the fingerprint fixes, by module: the Python version and build, and the platform.
_FIXED = {
    "sys": frozenset(["version_info", "hexversion", "platform"]),
    "os": frozenset(["name"]),
    "typing": frozenset(["TYPE_CHECKING"]),
}
# Methods of those values a condition may call (``sys.platform.startswith("win")``).
_METHODS = frozenset(["startswith", "endswith"])
_OPERATORS = (
    ast.Compare,
    ast.BoolOp,
    ast.UnaryOp,
    ast.Constant,
    ast.Tuple,
    ast.Subscript,
    ast.Slice,
    ast.Load,
    ast.cmpop,
    ast.boolop,
    ast.Not,
)


@dataclass
class GuardedModule:
    """A module's tree with its guards resolved."""

    tree: ast.Module
    """The statements that run, each guard replaced by its branch that runs."""
    dead: list[tuple[Pos, Pos, str]] = field(default_factory=list)
    """The branches not taken: holes of the module unit (``TokenText.without``)."""
    markers: list[str] = field(default_factory=list)
    """Which branch ran, per guard in order."""
    headers: list[tuple[Pos, Pos, str]] = field(default_factory=list)
    """The guards' own text (``if``/``elif`` and the condition, ``else``): holes of the
    module unit too."""

    def add_dead_unit(self, result: FileUnits, text: TokenText) -> None:
        """The ``DEAD`` unit of ``result``: which branch ran, the guards' text and every
        branch not taken, in order, each opened by a marker (one moved to another guard
        changes it); none without a guard."""
        if not self.markers:
            return
        parts = sorted([*((s, e, "<guard>") for s, e, _ in self.headers), *self.dead])
        texts = [
            t
            for start, end, mark in parts
            for t in (mark or "<dead>", *text.without(start, end, ()))
        ]
        result.checksums[DEAD] = digest([*self.markers, *texts])


def resolve_guards(tree: ast.Module) -> GuardedModule:
    """``tree`` with each top-level guard (and each guard first in the branch that runs)
    replaced by the statements of its branch that runs; ``tree`` itself when it has none."""
    if not any(isinstance(stmt, ast.If) for stmt in tree.body):
        return GuardedModule(tree)
    found = GuardedModule(tree)
    scope = Scope(tree, STDLIB)
    body = _resolved(tree.body, scope, found)
    if not found.markers:
        return found
    found.tree = ast.Module(body=body, type_ignores=tree.type_ignores)
    return found


def _resolved(statements: list[ast.stmt], scope: Scope, found: GuardedModule) -> list[ast.stmt]:
    """``statements`` with their guards resolved, taken into ``scope`` one by one."""
    out: list[ast.stmt] = []
    for stmt in statements:
        taken = guard_value(stmt.test, scope) if isinstance(stmt, ast.If) else None
        if taken is None:
            out.append(stmt)
            scope.after(stmt)
            continue
        assert isinstance(stmt, ast.If)
        runs, dead = (stmt.body, stmt.orelse) if taken else (stmt.orelse, stmt.body)
        found.markers.append(f"<guard:{'if' if taken else 'else'}>")
        if dead:
            found.dead.append((_start(dead[0]), _end(dead[-1]), ""))
        found.headers.append(((stmt.lineno, stmt.col_offset), _start(stmt.body[0]), ""))
        if stmt.orelse:  # ``else:``, or ``elif`` up to its own guard's text
            found.headers.append((_end(stmt.body[-1]), _start(stmt.orelse[0]), ""))
        out.extend(_resolved(runs, scope, found))
    return out


def guard_value(test: ast.expr, scope: Scope) -> bool | None:
    """Whether ``test`` holds, when it reads only what the fingerprint fixes (see the
    module's docstring) and evaluates here; None for any other condition."""
    if not _fixed(test, scope):
        return None
    value = query_value(test, scope)
    if value is MISSING:
        return None
    return bool(value)


def _fixed(node: ast.AST, scope: Scope) -> bool:
    if isinstance(node, ast.Attribute):
        return _fixed_attribute(node, scope)
    if isinstance(node, ast.Name):
        origin = scope.imported.get(node.id)
        return not scope.star and origin is not None and origin[1] in _FIXED.get(origin[0], ())
    if isinstance(node, ast.Call):
        func = node.func
        return (
            isinstance(func, ast.Attribute)
            and func.attr in _METHODS
            and not node.keywords
            and _fixed(func.value, scope)
            and all(isinstance(a, ast.Constant) for a in node.args)
        )
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return False
    return isinstance(node, _OPERATORS) and all(
        _fixed(child, scope) for child in ast.iter_child_nodes(node)
    )


def _fixed_attribute(node: ast.Attribute, scope: Scope) -> bool:
    """``sys.version_info`` (and its fields: ``sys.version_info.minor``), ``sys.platform``,
    ``os.name``... through a name bound to the module by a standard-library import."""
    owner = node.value
    if isinstance(owner, ast.Name) and owner.id in scope.modules:
        return not scope.star and node.attr in _FIXED.get(scope.modules[owner.id], ())
    return isinstance(owner, (ast.Attribute, ast.Name)) and _fixed(owner, scope)


def _start(stmt: ast.stmt) -> Pos:
    """Where ``stmt`` starts: its first decorator's line for a decorated definition."""
    decorators = getattr(stmt, "decorator_list", None)
    if decorators:
        return (min(d.lineno for d in decorators), 0)
    return (stmt.lineno, stmt.col_offset)


def _end(stmt: ast.stmt) -> Pos:
    return (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
