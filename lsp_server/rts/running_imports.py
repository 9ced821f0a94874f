"""What an import added to a file runs there, and whether that code may find a module half
run: the import statements of a file are judged by ``rts.import_statements``.

While a file runs at import, every module whose import led to it is still running: the
package whose ``__init__`` imports it, a module importing that one, and so on up the
chain. Their namespaces hold only what ran before the import that is under way. A ``from``
import added to the file runs its module there (when it was not imported before), and the
code that runs with it may take a name of one of those half-run modules (``from pkg import
Y`` where ``pkg/__init__`` binds ``Y`` after importing the file): the name is missing then,
and a ``try``/``except ImportError`` turns that into another value, not an error, even in a
test that imported the module anyway (later, when ``pkg`` was done).

Statically: a module may be running when ``path`` runs when ``path`` is in its run closure
(``ImportResolver.run_closure``: its own packages are imported before its code runs, so
importing them again runs nothing for it). A statement reads a module's names unless it
takes a submodule (``from pkg import sub``: the import system finds it in ``sys.modules``,
and it is the module that is read then). A plain ``import pkg`` followed by a top-level
read of ``pkg.Y`` is not counted (see ``modules_read``).
"""

from __future__ import annotations

from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.spans import ImportStatement
from lsp_server.rts.unit_names import header_name

_MODULE_GETATTR = header_name("__getattr__")


def runs_with(resolver: ImportResolver, path: str, target: str) -> frozenset[str]:
    """The project files whose code may run when ``path`` imports ``target`` (``target``
    included): its run closure, and the packages above it that are not above ``path``
    (those are imported before ``path`` runs; the others may not be, and run there
    first), with their own run closures."""
    runs = set(resolver.run_closure(target))
    before = resolver.packages_above(path) | {path}
    for package in resolver.packages_above(target) - before:
        runs |= resolver.run_closure(package)
    return frozenset(runs)


def reads_running_module(
    states: FileStates, resolver: ImportResolver, path: str, runs: frozenset[str]
) -> bool:
    """Whether a file of ``runs`` (what an import added to ``path`` runs: ``runs_with``)
    has an import statement reading the names of a module that may be running when
    ``path`` runs (``path`` itself included). Every statement counts, a function's too
    (a call or a class hook at import may run it): conservative."""
    running: dict[str, bool] = {}

    def may_be_running(rel: str) -> bool:
        found = running.get(rel)
        if found is None:
            found = running[rel] = rel == path or path in resolver.run_closure(rel)
        return found

    for rel in runs:
        units = states.units(rel)
        if units is None:
            return True
        for statement in units.imports:
            if any(map(may_be_running, modules_read(states, resolver, rel, statement))):
                return True
    return False


def modules_read(
    states: FileStates, resolver: ImportResolver, rel: str, statement: ImportStatement
) -> list[str]:
    """The project files whose namespaces ``statement`` of ``rel`` reads (or binds for
    later reads): see the module's docstring."""
    if not statement.is_from:
        # ``import pkg`` reads nothing itself; an attribute read off ``pkg`` at the top level
        # afterwards is not told apart from one in a function (util's ``import pkg`` in
        # ``test_from_import_statements``): not counted, a known gap.
        return []
    origin = resolver.from_origin(rel, statement)
    if origin is None:
        return []
    module = statement.module or ""
    out: list[str] = []
    for name in statement.names:
        submodule = None
        if name != "*" and takes_submodule(states, resolver, origin, name):
            dotted = f"{module}.{name}" if module else name
            submodule = resolver.module_file(rel, dotted, statement.level)
        out.append(origin if submodule is None else submodule)
    return out


def takes_submodule(states: FileStates, resolver: ImportResolver, origin: str, name: str) -> bool:
    """Whether ``from <origin> import name`` surely takes a submodule ``name``: the package
    binds the name at most by importing that submodule itself (sqlparse's ``__init__``:
    ``from sqlparse import cli``), so it is no attribute but the submodule when the
    statement looks (a package holding no such submodule binds the name if anything)."""
    units = states.units(origin)
    if units is None or units.open_namespace or _MODULE_GETATTR in units.checksums:
        return False
    bindings = units.bound.get(name, [])
    if name in units.top_names and not bindings:
        return False  # bound by a statement of the module unit
    return all(
        (taken := units.from_imports.get(unit)) is not None
        and taken[2] == name
        and resolver.module_file(origin, taken[0], taken[1]) == origin
        for unit in bindings
    )


def prefixes(dotted: str) -> list[str]:
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c``: the modules importing it runs."""
    parts = dotted.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
