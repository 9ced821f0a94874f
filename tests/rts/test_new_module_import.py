"""A package ``__init__`` starts importing a module file that is new (python-validators
adds each check so: ``from .bsc_address import bsc_address`` and a line in ``__all__``).
No test ran the new module, so none surely imports it otherwise; yet when its import runs
only definitions that cannot raise, changes nothing outside its own namespace and imports
only what the test imported anyway, a test sees only the names it binds (their own units
select). Real pytest sessions on temporary projects."""

from __future__ import annotations

import pytest

from .helpers import ran_and_failed, run, write

pytest_plugins = ["pytester"]

_NEW_CHECK = """
from helpers import checker


@checker
def new_check(value):
    return value == "new"
"""


@pytest.fixture
def checks_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A package exposing checks decorated by a ``@wraps`` wrapper of a module ``helpers``,
    which also holds a registry. The test file imports ``helpers`` at its top, so the tests
    surely import it; each test imports the package itself (an import failing fails the
    test, not the collection) and reads one thing of it."""
    write(
        pytester,
        "helpers.py",
        """
        from functools import wraps

        REGISTRY = []


        def checker(func):
            @wraps(func)
            def wrapper(*args):
                return bool(func(*args))

            return wrapper
        """,
    )
    write(pytester, "pkg/old.py", _NEW_CHECK.replace("new", "old"))
    write(
        pytester,
        "pkg/__init__.py",
        """
        from .old import old_check

        __all__ = ("old_check",)
        """,
    )
    write(
        pytester,
        "test_checks.py",
        """
        import helpers


        def test_old():
            from pkg import old_check

            assert old_check("old")


        def test_listing():
            import pkg

            assert pkg.__all__ == ("old_check",)


        def test_no_new_name():
            import pkg

            assert not hasattr(pkg, "new_check")


        def test_registry_empty():
            import pkg  # noqa: F401

            assert helpers.REGISTRY == []
        """,
    )
    assert run(pytester) == {"test_old", "test_listing", "test_no_new_name", "test_registry_empty"}
    return pytester


def _import_new(pytester: pytest.Pytester, module: str, names: str = "new_check") -> None:
    write(pytester, "pkg/new.py", module)
    init = pytester.path / "pkg/__init__.py"
    init.write_text(f"from .new import {names}\n" + init.read_text())


def test_new_plain_module_selects_only_the_readers_of_its_name(
    checks_project: pytest.Pytester,
) -> None:
    """Precision: the new module only defines a wrapped check; the test looking the new
    name up runs (and fails), the others need not."""
    _import_new(checks_project, _NEW_CHECK)
    assert ran_and_failed(checks_project) == ({"test_no_new_name"}, {"test_no_new_name"})


def test_new_module_listed_in_all_selects_the_test_reading_all(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: ``__all__`` lists the new name too: the test reading it runs and fails."""
    _import_new(checks_project, _NEW_CHECK)
    init = checks_project.path / "pkg/__init__.py"
    init.write_text(init.read_text().replace('("old_check",)', '("old_check", "new_check")'))
    ran, failed = ran_and_failed(checks_project)
    assert {"test_listing", "test_no_new_name"} <= failed
    assert "test_old" not in ran


def test_new_module_raising_at_import_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the new module reads a name nothing binds at import: every test fails."""
    _import_new(checks_project, _NEW_CHECK + "\nLIMIT = undefined_limit\n")
    _, failed = ran_and_failed(checks_project)
    assert {"test_old", "test_listing", "test_registry_empty"} <= failed


def test_new_module_importing_a_missing_library_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the new module imports a library that is not installed."""
    _import_new(checks_project, "import not_installed_library_xyz\n" + _NEW_CHECK)
    _, failed = ran_and_failed(checks_project)
    assert {"test_old", "test_listing", "test_registry_empty"} <= failed


def test_new_module_registering_at_import_selects_the_registry_reader(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the new module fills another module's registry at import."""
    registering = _NEW_CHECK.replace(
        "from helpers import checker", "from helpers import REGISTRY, checker"
    )
    _import_new(checks_project, registering + "\nREGISTRY.append('new')\n")
    _, failed = ran_and_failed(checks_project)
    assert "test_registry_empty" in failed


def test_new_module_shadowing_a_read_name_selects_its_reader(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the new module binds ``old_check`` too and the package now takes it from
    there (after the old import): the test calling it runs and fails."""
    write(checks_project, "pkg/new.py", _NEW_CHECK.replace("new_check", "old_check"))
    init = checks_project.path / "pkg/__init__.py"
    text = init.read_text().replace("__all__", "from .new import old_check\n\n__all__", 1)
    init.write_text(text)
    _, failed = ran_and_failed(checks_project)
    assert "test_old" in failed


def test_new_module_importing_a_module_no_test_ran_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the new module imports a project module that was there when the tests were
    recorded but that no test ran, and that raises at import."""
    write(checks_project, "pkg/extra.py", "LIMIT = undefined_limit\n")
    assert run(checks_project) == set()
    _import_new(checks_project, "from pkg.extra import LIMIT\n" + _NEW_CHECK)
    _, failed = ran_and_failed(checks_project)
    assert {"test_old", "test_listing", "test_registry_empty"} <= failed


def test_new_module_importing_a_missing_library_under_an_if_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the import of a library that is not installed stands under an ``if`` that
    holds: no top-level statement of the module, it runs all the same."""
    branch = "import sys\n\nif sys.maxsize:\n    import not_installed_library_xyz\n"
    _import_new(checks_project, branch + _NEW_CHECK)
    _, failed = ran_and_failed(checks_project)
    assert {"test_old", "test_listing", "test_registry_empty"} <= failed


def test_new_module_seen_as_an_attribute_of_its_package_selects_its_reader(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: importing the new module binds it in its package as well (``pkg.new``): a
    test looking that attribute up runs and fails."""
    write(
        checks_project,
        "test_modules.py",
        """
        import helpers


        def test_no_new_module():
            import pkg

            assert not hasattr(pkg, "new")
        """,
    )
    assert run(checks_project) == {"test_no_new_module"}
    _import_new(checks_project, _NEW_CHECK)
    _, failed = ran_and_failed(checks_project)
    assert "test_no_new_module" in failed
