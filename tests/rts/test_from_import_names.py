"""The names a ``from module import ...`` of a project module binds are bindings of their
own: a name added to the list changes what the importing module's readers of that name see,
and nothing for its other importers when the module binds the name (found as an attribute:
no submodule imported, no ``ImportError``), on real pytest sessions. A name the module does
not bind, a name removed that may have been a submodule, or an import cycle keep the
statement's effect on every importer."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "")
    write(
        pytester,
        "pkg/core.py",
        """
        UNSET = object()


        def work(x, flag=None):
            return x


        def other():
            return 1
        """,
    )
    write(
        pytester,
        "pkg/api.py",
        """
        from .core import work


        def run(x):
            return work(x)


        def unrelated():
            return 2
        """,
    )
    write(
        pytester,
        "test_api.py",
        """
        def test_run():
            from pkg import api

            assert api.run(1) == 1


        def test_unrelated():
            from pkg import api  # at run time: an ImportError fails the test, not collection

            assert api.unrelated() == 2
        """,
    )
    write(
        pytester,
        "test_core.py",
        "from pkg.core import other\n\n\ndef test_other():\n    assert other() == 1\n",
    )
    assert run(pytester) == {"test_run", "test_unrelated", "test_other"}
    return pytester


def test_a_name_the_module_binds_added_to_the_list_selects_nothing(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/api.py", "from .core import work", "from .core import UNSET, work")
    assert run(project) == set()
    edit(project, "pkg/api.py", "return work(x)", "return work(x, UNSET)")
    assert run(project) == {"test_run"}


def test_a_name_the_module_does_not_bind_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/api.py", "from .core import work", "from .core import MISSING, work")
    assert run(project) == {"test_run", "test_unrelated"}


def test_a_name_removed_from_the_module_selects_the_importers_of_its_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/api.py", "from .core import work", "from .core import UNSET, work")
    assert run(project) == set()
    edit(project, "pkg/core.py", "UNSET = object()\n", "")
    assert run(project) == {"test_run", "test_unrelated"}


def test_a_name_removed_from_the_list_that_may_be_a_submodule_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    write(project, "pkg/sub/__init__.py", "LOADED = True\n")
    edit(
        project, "pkg/api.py", "from .core import work", "from .core import work\nfrom . import sub"
    )
    edit(project, "pkg/__init__.py", "", "from .core import UNSET\n")
    # test_other imports core anyway: the package importing it first is not seen there.
    assert run(project) == {"test_run", "test_unrelated"}
    edit(project, "pkg/api.py", "from .core import work", "from .core import UNSET, work")
    assert run(project) == set()
    edit(project, "pkg/api.py", "from .core import UNSET, work", "from .core import work")
    assert run(project) == set()  # core has no submodule UNSET: nothing was imported
    edit(project, "pkg/api.py", "from . import sub", "from pkg import core, sub")
    assert run(project) == {"test_run", "test_unrelated"}
    edit(project, "pkg/api.py", "from pkg import core, sub", "from pkg import core")
    assert run(project) == {"test_run", "test_unrelated"}


def test_a_name_added_in_an_import_cycle_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    # core imports api at its end: api may run while core is half done, before names
    # core binds later (none here, but a proof would need the order of both modules).
    write(
        project,
        "pkg/core.py",
        (project.path / "pkg/core.py").read_text() + "\n\nfrom . import api\n",
    )
    assert run(project) == {"test_run", "test_unrelated", "test_other"}
    edit(project, "pkg/api.py", "from .core import work", "from .core import UNSET, work")
    assert run(project) == {"test_run", "test_unrelated", "test_other"}


def _package_imports_api_and_core_imports_its_package(project: pytest.Pytester) -> None:
    write(project, "pkg/__init__.py", "from .api import run\n")
    write(project, "pkg/core.py", "import pkg\n\n" + (project.path / "pkg/core.py").read_text())
    assert run(project) == {"test_run", "test_unrelated", "test_other"}


def test_a_name_added_where_the_module_imports_only_its_own_package_selects_nothing(
    project: pytest.Pytester,
) -> None:
    # core imports pkg, which imports api: no cycle that can leave core half run when
    # api looks, since importing core imports pkg first and `import pkg` then runs nothing.
    _package_imports_api_and_core_imports_its_package(project)
    edit(project, "pkg/api.py", "from .core import work", "from .core import UNSET, work")
    assert run(project) == set()


@pytest.mark.parametrize("back", ["from pkg import api", "import pkg.api"])
def test_a_name_added_where_the_module_imports_the_importer_by_its_package_selects_all(
    project: pytest.Pytester, back: str
) -> None:
    # The package is run already, but api, named through it, is imported by core.
    _package_imports_api_and_core_imports_its_package(project)
    edit(project, "pkg/core.py", "import pkg\n", f"import pkg\n{back}\n")
    assert run(project) == {"test_run", "test_unrelated", "test_other"}
    edit(project, "pkg/api.py", "from .core import work", "from .core import UNSET, work")
    assert run(project) == {"test_run", "test_unrelated", "test_other"}
