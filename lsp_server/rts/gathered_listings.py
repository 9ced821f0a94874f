"""A package gathering its ``__all__`` from its modules' listings with a helper that only
copies what it iterates: ``__all__ = lcat(sys.modules["pkg." + m].__all__ for m in MODS)``
with ``def lcat(seqs): return list(chain.from_iterable(seqs))`` (funcy's ``__init__``).

The generator expression runs at the package's import, for every test importing any of its
modules, and reads ``__all__``: every importer depended on each module's listing, and adding
a name to one selected every test. A listing that is a literal list of names before and
after (``rts.star_listings``: known, every name bound) only changes what the copy holds, so
the import cannot fail by it: the read counts as ``GATHERED`` instead, and the tests reading
the package's ``__all__`` or a name listed anew are found as before (``star_listings``). A
listing that is not known then selects the ``GATHERED`` readers, and any listing change the
tests star-importing a gathering module (the names they take changed).

Proved, not guessed: the helper is the only binding of its name the star imports of the
gathering module bring (the module binds it no other way and spells no ``globals``,
``exec`` or the like), a function of one parameter whose body returns ``list`` or
``tuple`` of its parameter, or of ``itertools.chain.from_iterable`` of it, through names its
module binds once (or builtins it never binds), judged on the files as they are now.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from collections.abc import Callable
from types import CodeType, FunctionType
from typing import TYPE_CHECKING

from lsp_server.rts.ast_walk import walk

if TYPE_CHECKING:  # only for the annotations: the analysis modules import this one
    from lsp_server.rts.file_units import FileUnits
    from lsp_server.rts.snapshots import FileStates

GATHERED = "<gathered>"
"""The ``NAMES`` name of a test whose modules gather listings with a copying helper."""

# Spellings that may rebind a module's names other than by a statement binding them.
_REBINDERS = frozenset(["globals", "vars", "exec", "eval", "__dict__", "setattr", "builtins"])
_COPIES = frozenset(["list", "tuple", "itertools.chain.from_iterable"])


def gathering_calls(tree: ast.Module) -> tuple[tuple[int, str], ...]:
    """(line of the generator expression, helper name) of each top-level
    ``__all__ = helper(X.__all__ for v in ...)`` whose helper only the module's star imports
    bind, in a module that spells no other way to rebind its names."""
    # The top-level statements first: most modules have no such statement, and then the
    # walks of the whole tree below are not needed (they were a twentieth of an analysis).
    candidates: list[tuple[int, str]] = []
    last_star = max((at for at, stmt in enumerate(tree.body) if _star_import(stmt)), default=-1)
    for at, stmt in enumerate(tree.body):
        if at <= last_star:
            continue  # the helper the statement calls could be another one at the end
        value = stmt.value if isinstance(stmt, ast.Assign) else None
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        if [ast.dump(t) for t in targets] != [ast.dump(ast.Name("__all__", ast.Store()))]:
            continue
        (gen,) = value.args if len(value.args) == 1 and not value.keywords else (None,)
        if isinstance(gen, ast.GeneratorExp) and _gathers(gen):
            candidates.append((gen.lineno, value.func.id))
    if not candidates or any(_spells(node, _REBINDERS) for node in walk(tree)):
        return ()
    counts = _binding_counts(tree)
    found = [(line, helper) for line, helper in candidates if not counts[helper]]
    # Read elsewhere, ``__all__`` stays read there (``rts.units`` drops it from the module's
    # reads at import: the generator expressions' code tells whether they only copy).
    spelled = sum(
        _spells(node, frozenset(["__all__"])) or _names_listing(node) for node in walk(tree)
    )
    return tuple(found) if found and spelled == len(found) + _stores(tree) else ()


def copying_functions(tree: ast.Module) -> frozenset[str]:
    """The top-level functions, bound once, returning a copy of their one parameter's items."""
    # The functions of that shape first: with none, the walks of the whole tree are spared.
    candidates = [found for found in map(_returned_call, tree.body) if found is not None]
    if not candidates or any(map(_star_import, tree.body)):
        return frozenset()
    if any(_spells(n, _REBINDERS) for n in walk(tree)):
        return frozenset()  # the names its helpers call could be bound elsewhere
    counts = _binding_counts(tree)
    aliases = _stdlib_aliases(tree, counts)
    return frozenset(
        function.name
        for function, returned in candidates
        if counts[function.name] == 1 and _copies(returned, function.args.args[0].arg, aliases)
    )


def _returned_call(stmt: ast.stmt) -> tuple[ast.FunctionDef, ast.Call] | None:
    """An undecorated function of one plain parameter whose body (past its docstring) is
    one ``return`` of a call: the function and the call."""
    if not isinstance(stmt, ast.FunctionDef) or stmt.decorator_list:
        return None
    args = stmt.args
    if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg or args.defaults:
        return None
    body = stmt.body[1:] if ast.get_docstring(stmt) is not None else stmt.body
    if len(args.args) != 1 or len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    returned = body[0].value
    return (stmt, returned) if isinstance(returned, ast.Call) else None


def gathered_by_copy(
    code: CodeType, units: FileUnits, states: FileStates, rel: Callable[[str], str | None]
) -> bool:
    """Whether ``code`` is a gathering generator expression of ``units``' module whose
    helper, as the imported module holds it, is a copying function of a project file
    (``rel``: a file's project path, None outside the project)."""
    helper = dict(units.gathering).get(code.co_firstlineno)
    if helper is None or code.co_name != "<genexpr>":
        return False
    module = next(
        (m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == code.co_filename),
        None,
    )
    function = getattr(module, helper, None)
    if not isinstance(function, FunctionType):
        return False
    inner = function.__code__
    if getattr(inner, "co_qualname", inner.co_name) != helper:
        return False  # a method, or a function bound under another name
    path = rel(inner.co_filename)
    source = None if path is None else states.units(path)
    return source is not None and helper in source.copying


def _stores(tree: ast.Module) -> int:
    """How many times the module spells ``__all__`` to bind it."""
    return sum(
        isinstance(n, ast.Name) and n.id == "__all__" and not isinstance(n.ctx, ast.Load)
        for n in walk(tree)
    )


def _names_listing(node: ast.AST) -> bool:
    """A string naming ``__all__`` (``getattr(m, "__all__")``): a read too."""
    return isinstance(node, ast.Constant) and node.value == "__all__"


def _star_import(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names)


def _gathers(gen: ast.GeneratorExp) -> bool:
    """``X.__all__ for v in ...``: one loop, no condition, ``__all__`` spelled only there."""
    elt = gen.elt
    if not (isinstance(elt, ast.Attribute) and elt.attr == "__all__"):
        return False
    if len(gen.generators) != 1 or gen.generators[0].ifs or gen.generators[0].is_async:
        return False
    spelled = [n for n in walk(gen) if _spells(n, frozenset(["__all__"]))]
    return spelled == [elt]


def _copies(node: ast.expr | None, param: str, aliases: dict[str, str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id == param
    if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
        return False
    callee = _dotted(node.func, aliases)
    return callee in _COPIES and _copies(node.args[0], param, aliases)


def _dotted(node: ast.expr, aliases: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, aliases)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _stdlib_aliases(tree: ast.Module, counts: Counter[str]) -> dict[str, str]:
    """Names bound once in the module (or builtins never bound) -> the dotted
    standard-library path they hold: ``from itertools import chain``, ``cat =
    chain.from_iterable``."""
    aliases = {name: name for name in ("list", "tuple") if not counts[name]}
    for stmt in tree.body:
        bound: list[tuple[str, str | None]] = []
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "itertools" and not stmt.level:
            bound = [(a.asname or a.name, f"itertools.{a.name}") for a in stmt.names]
        elif isinstance(stmt, ast.Import):
            bound = [(a.asname or a.name, a.name) for a in stmt.names if a.name == "itertools"]
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                bound = [(target.id, _dotted(stmt.value, aliases))]
        # A name bound more than once may hold anything when the helper runs.
        aliases.update((n, path) for n, path in bound if path is not None and counts[n] == 1)
    return aliases


def _binding_counts(tree: ast.Module) -> Counter[str]:
    """How often each name is bound anywhere in the module (locals and ``global``
    declarations included: an over-count only costs precision)."""
    counts: Counter[str] = Counter()
    for node in walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            counts[node.name] += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            counts.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            counts.update(node.names)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            counts[node.name] += 1
        elif isinstance(node, ast.arg):
            counts[node.arg] += 1
    return counts


def _spells(node: ast.AST, words: frozenset[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in words
    if isinstance(node, ast.Attribute):
        return node.attr in words
    return False
