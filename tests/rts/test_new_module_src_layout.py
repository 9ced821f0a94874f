"""A new module a package imports relatively, in a ``src`` layout that gains a
``src/__init__.py`` (python-validators 894a069 added one, with a docstring, and
``from .ru import ru_inn`` in ``validators/i18n/__init__.py``). The tests import ``pkg``
from ``src``, so no test ran ``src/__init__.py``; a relative import goes through the
packages the importing package runs under, already imported, whatever the import root.
Real pytest sessions on temporary projects."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

_CHECK = """
from helpers import checker


@checker
def new_check(value):
    return value == "new"
"""


@pytest.fixture
def src_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """``src/pkg`` exposes a check decorated by a ``@wraps`` wrapper of ``src/helpers.py``,
    which also holds a registry; the tests import ``pkg`` with ``src`` on the path."""
    pytester.makeini("[pytest]\npythonpath = src\n")
    write(
        pytester,
        "src/helpers.py",
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
    write(pytester, "src/pkg/old.py", _CHECK.replace("new", "old"))
    write(pytester, "src/pkg/__init__.py", "from .old import old_check\n")
    write(
        pytester,
        "test_checks.py",
        """
        import helpers


        def test_old():
            from pkg import old_check

            assert old_check("old")


        def test_no_new_name():
            import pkg

            assert not hasattr(pkg, "new_check")


        def test_registry_empty():
            import pkg  # noqa: F401

            assert helpers.REGISTRY == []
        """,
    )
    assert run(pytester) == {"test_old", "test_no_new_name", "test_registry_empty"}
    write(pytester, "src/__init__.py", '"""Sources."""\n')
    return pytester


def test_new_module_imported_relatively_under_a_new_src_init_selects_only_its_readers(
    src_project: pytest.Pytester,
) -> None:
    """Precision: ``src/__init__.py`` is above ``pkg`` on disk, but no test runs it."""
    write(src_project, "src/pkg/new.py", _CHECK)
    edit(src_project, "src/pkg/__init__.py", "from .old", "from .new import new_check\nfrom .old")
    assert ran_and_failed(src_project) == ({"test_no_new_name"}, {"test_no_new_name"})


def test_new_module_in_a_new_subpackage_that_calls_at_import_selects_every_importer(
    src_project: pytest.Pytester,
) -> None:
    """Guard: the new module is in a new subpackage whose ``__init__`` fills the registry:
    a package above the new module but not above its importer."""
    write(src_project, "src/pkg/sub/__init__.py", "import helpers\n\nhelpers.REGISTRY.append(1)\n")
    write(src_project, "src/pkg/sub/new.py", _CHECK)
    new_import = "from .sub.new import new_check\nfrom .old"
    edit(src_project, "src/pkg/__init__.py", "from .old", new_import)
    ran, failed = ran_and_failed(src_project)
    assert failed == {"test_no_new_name", "test_registry_empty"}
    assert "test_old" in ran
