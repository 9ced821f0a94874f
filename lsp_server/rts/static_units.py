"""The units a test depends on before anything runs: what its file imports (statically)
and its conftests, and a doctest's docstring (``rts.attribution`` adds what ran)."""

from __future__ import annotations

import pytest

from lsp_server.project.files import ProjectPaths, is_python
from lsp_server.rts.file_units import Unit
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.module_docstring import MODULE_DOC
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.unit_names import FILE, MODULE, doc_name


def static_units(
    item: pytest.Item, paths: ProjectPaths, resolver: ImportResolver, states: FileStates
) -> set[Unit]:
    """The units every run of ``item`` depends on whatever it runs: the module units of its
    file's static import closure and of its conftests' (their hooks collect it), the file
    unit of a non-Python test file, and a doctest's docstring with its definition."""
    units: set[Unit] = set()
    rel = paths.rel(str(item.path))
    if rel is None:
        return units
    # Conftests count for non-Python test files too: their hooks collect them.
    for conftest in resolver.conftests(rel):
        units.update(Unit(f, MODULE) for f in resolver.closure(conftest))
    if not is_python(rel):
        units.add(Unit(rel, FILE))
    else:
        units.update(Unit(f, MODULE) for f in resolver.closure(rel))
    dtest = getattr(item, "dtest", None)
    if dtest is not None and dtest.filename:
        doc_rel = paths.rel(dtest.filename)
        if doc_rel is not None and is_python(doc_rel):
            file_units = states.units(doc_rel)
            if file_units is not None and dtest.lineno is not None:
                function = file_units.unit_at_line(dtest.lineno + 1)
                units.add(function)
                if function.name in file_units.spans:  # the examples are its docstring
                    units.add(Unit(doc_rel, doc_name(function.name)))
                # A class's docstring is in the class unit (a plain class's: its own).
                owner = file_units.class_at_line(dtest.lineno + 1)
                if owner is not None:
                    units.add(owner)
                    if doc_name(owner.name) in file_units.checksums:  # a plain class's
                        units.add(Unit(doc_rel, doc_name(owner.name)))
            units.add(Unit(doc_rel, MODULE))
            if file_units is not None and MODULE_DOC in file_units.checksums:
                units.add(Unit(doc_rel, MODULE_DOC))  # a module docstring's examples
        elif doc_rel is not None:
            units.add(Unit(doc_rel, FILE))
    return units
