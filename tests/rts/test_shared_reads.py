"""What a test file's imports read is followed once for all its tests (``BindingReads.read``
with a base); each test adds what its own code read. The recorded units must be those of
following everything for each test: on real pytest sessions, a test reading anywhere a
name its file's imports read only as a module's global, and a test reading code (which
keeps the bodies of every function the imports found)."""

from __future__ import annotations

import pytest

from lsp_server.rts.file_units import Unit
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import NAMES, module_read

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "geometry.py",
        """
        REGISTRY = []


        def compute():
            REGISTRY.append(1)
            return 3


        compute()


        def area(side):
            return side * side
        """,
    )
    write(
        pytester,
        "test_geometry.py",
        """
        import geometry
        from geometry import area

        assert area  # read at import: followed once for all the tests of the file


        class Box:
            compute = 1


        def test_plain():
            assert geometry.REGISTRY


        def test_attribute():
            assert Box().compute == 1


        def test_code():
            assert area.__code__.co_name == "area"
        """,
    )
    return pytester


def _names(pytester: pytest.Pytester, test: str) -> set[str]:
    with DependencyStore(pytester.path) as store:
        units = store.dependencies_of(f"test_geometry.py::{test}")
    return {unit.name for unit in units if unit.path == NAMES}


def test_a_name_read_anywhere_replaces_its_module_global(project: pytest.Pytester) -> None:
    assert run(project) == {"test_plain", "test_attribute", "test_code"}
    # The imports read ``compute`` only as a global of geometry.py (its call at import).
    assert module_read("compute", "geometry.py") in _names(project, "test_plain")
    read_anywhere = _names(project, "test_attribute")
    assert "compute" in read_anywhere
    assert module_read("compute", "geometry.py") not in read_anywhere


def test_reading_code_keeps_the_bodies_the_imports_found(project: pytest.Pytester) -> None:
    run(project)
    with DependencyStore(project.path) as store:
        units = store.dependencies_of("test_geometry.py::test_code")
    assert Unit("geometry.py", "area") in units  # its body: the test read its code
    edit(project, "geometry.py", "return side * side", "return side**2")
    assert run(project) == {"test_code"}
