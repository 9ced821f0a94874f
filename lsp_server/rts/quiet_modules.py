"""When a module no test ran may start running inside a test unseen, but for its names.

A package ``__init__`` that starts importing a new module (python-validators adds each
check so: ``from .bsc_address import bsc_address``, and lists the name in ``__all__``)
runs that module in every test importing the package. None of them imported it before,
so ``rts.import_statements`` found none that surely imports it otherwise and ran them all.
What a test can see of the new module running is then: its import failing, what it does
beyond its own namespace, what the modules it imports do in turn, and the names the
statement binds. The names have units of their own (the importer's ``<import>.name`` and
``__all__``: the tests reading them, looking names up by string or star-importing run;
``rts.binding_reads``, ``rts.star_listings``). The rest is ruled out here, per test:

* its top level cannot raise, imports aside (``import_effects.may_raise_at_import``), calls
  nothing the module does not define and changes nothing but its own namespace;
* each top-level import (a top-level ``try``'s too: ``except ImportError:`` handles its
  failure, ``import_effects.may_raise_at_import``) takes a standard-library module (whose
  names the bindings judged), an installed library whose import, run once in a fresh
  process, shows by its names only (``rts.library_imports``: python-validators'
  ``eth_hash.auto``) or a project file, never with a star, and every project file the
  module runs (its packages included, but the importer) is one the test ran at import when it was
  recorded (it depends on its module unit: any change there selects it), so nothing the
  test did not run before runs now; when it runs is not seen (``rts.import_statements``
  checked that none of them calls anything or changes another module at import). A
  relative import needs none of the packages above the importer: it goes through the
  packages the importer runs in, imported before it, under whatever names the import root
  gave them; a ``src/__init__.py`` above them on disk (python-validators added one) runs
  in no test importing the package from ``src``. An absolute one names its packages from
  the root the resolver assumes, so each of them is needed;
* each name a ``from`` import takes is bound at that file's top level (no cycle:
  ``rts.from_import_checks``), and each ``def`` decorated by a wrapper taken from another
  module is decorated by a trusted ``@wraps`` wrapper there (``rts.imported_wrappers``).

Only files the store never recorded count (no test ran their code); a recorded one keeps
the rule of ``rts.import_statements``.
"""

from __future__ import annotations

from collections.abc import Collection

from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.from_import_checks import unproven
from lsp_server.rts.imported_wrappers import unproven_wrappers
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.library_imports import probe_import
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.spans import ImportStatement
from lsp_server.rts.stdlib_imports import STDLIB
from lsp_server.rts.unit_names import wrapped_parts


def files_needed(
    states: FileStates,
    resolver: ImportResolver,
    importer: str,
    target: str,
    relative: bool,
    recorded: Collection[str] = (),
) -> frozenset[str] | None:
    """The project files a test must have run when recorded for ``target``, a module no
    test ran, to start running inside ``importer`` (by a ``relative`` import or not)
    unseen but for its names (see the module docstring); None when it may be seen
    whatever the test imported. Given the ``recorded`` files, each other file ``target``
    runs that no test ran (a new subpackage's modules) must be as quiet, and its packages
    are needed as well (it may name them by an absolute import)."""
    if not _quiet(states, resolver, target):
        return None
    running = resolver.run_closure(target) | resolver.packages_above(target)
    if relative:  # through the packages ``importer`` runs in: imported, whatever its root
        running -= resolver.packages_above(importer)
    running -= {target, importer}
    if not recorded:
        return frozenset(running)
    new = {rel for rel in running if rel not in recorded}
    running |= set().union(*map(resolver.packages_above, new)) - {target, importer}
    new = {rel for rel in running if rel not in recorded}
    if not all(_quiet(states, resolver, rel) for rel in new):
        return None
    return frozenset(running - new)


def _quiet(states: FileStates, resolver: ImportResolver, target: str) -> bool:
    """Whether running ``target`` at import is seen by nothing but its names (per file)."""
    units = states.units(target)
    if units is None or units.may_raise_at_import or units.call_sites:
        return False
    if not units.changes_only_own_namespace or not imports_judged(resolver, target, units):
        return False
    taken = [Unit(target, name) for name in units.from_imports]
    wrapped = [Unit(target, name) for name in units.checksums if wrapped_parts(name)]
    return not (
        unproven(states, resolver, taken, []) or unproven_wrappers(states, resolver, wrapped)
    )


def imports_judged(resolver: ImportResolver, target: str, units: FileUnits) -> bool:
    """Whether each top-level import of ``target`` (those of a top-level ``try`` too)
    takes a project file or a standard-library module, without a star."""
    return all(_judged(resolver, target, s) for s in units.imports if s.top or s.tried)


def _judged(resolver: ImportResolver, target: str, statement: ImportStatement) -> bool:
    if not statement.is_from:
        return all(_known_module(resolver, target, name, None) for name in statement.names)
    if "*" in statement.names:
        return False  # it may fail on a name ``__all__`` lists
    if statement.level:
        return resolver.from_origin(target, statement) is not None
    module = statement.module or ""
    return _known_module(resolver, target, module, statement.names)


def _known_module(
    resolver: ImportResolver, target: str, module: str, names: tuple[str, ...] | None
) -> bool:
    """A project file, a standard-library module, or an installed library whose import
    (``from module import names``, or ``import module`` for ``names`` None) shows by its
    names only (``rts.library_imports``)."""
    if resolver.module_file(target, module, 0) is not None:
        return True
    if module.split(".")[0] in STDLIB:
        return True
    found = probe_import(resolver.root, module, names)
    return found is not None and found.quiet()
