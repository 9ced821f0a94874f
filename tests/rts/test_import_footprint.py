"""What runs while a module is imported shapes what it defines (a class decorator, a
registry filled at import), yet it runs once, for whichever test, collection or conftest
imported the module first. Every test depending on the module depends on it (attrs'
``VersionInfo``, built by ``@attrs`` when ``attr`` is imported by a conftest, missed by
pytest-testmon and by reks before import footprints)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def decorated(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    write(pytester, "pytest.ini", "[pytest]\npythonpath = .\n")
    write(pytester, "pkg/__init__.py", "")
    write(
        pytester,
        "pkg/build.py",
        """
        def label(name):
            return name.upper()


        def tagged(cls):
            cls.tag = label(cls.__name__)
            return cls
        """,
    )
    write(
        pytester,
        "pkg/first.py",
        """
        from pkg.build import tagged


        @tagged
        class First:
            pass
        """,
    )
    write(
        pytester,
        "pkg/second.py",
        """
        from pkg.build import tagged


        @tagged
        class Second:
            pass
        """,
    )
    write(
        pytester,
        "tests/test_a_first.py",
        """
        from pkg.first import First


        def test_first():
            assert First.tag == "FIRST"
        """,
    )
    write(
        pytester,
        "tests/test_b_second.py",
        """
        from pkg.second import Second


        def test_second():
            assert Second.tag == "SECOND"
        """,
    )
    write(
        pytester,
        "tests/test_c_plain.py",
        """
        from pkg import build


        def test_plain():
            assert build.__name__ == "pkg.build"
        """,
    )
    return pytester


def test_code_run_at_import_selects_every_test_of_the_module(decorated: pytest.Pytester) -> None:
    assert run(decorated) == {"test_first", "test_second", "test_plain"}
    assert run(decorated) == set()
    # `label` ran once per decorated class, while each module was imported by collection.
    edit(decorated, "pkg/build.py", "return name.upper()", "return name.lower()")
    assert run(decorated) == {"test_first", "test_second"}  # and both fail
    edit(decorated, "pkg/build.py", "return name.lower()", "return name.upper()")
    assert run(decorated) == {"test_first", "test_second"}
    assert run(decorated) == set()


def test_modules_imported_by_a_conftest(decorated: pytest.Pytester) -> None:
    # The conftest imports both modules before any test file is collected; its imports
    # count for every test below it.
    # With testpaths, pytest imports it as an initial conftest, before collection starts.
    write(decorated, "tests/conftest.py", "import pkg.first\nimport pkg.second\n")
    write(decorated, "pytest.ini", "[pytest]\npythonpath = .\ntestpaths = tests\n")
    everything = {"test_first", "test_second", "test_plain"}
    assert run(decorated) == everything
    edit(decorated, "pkg/build.py", "return name.upper()", "return name.title()")
    assert run(decorated) == everything
    assert run(decorated) == {"test_first", "test_second"}  # still failing
    edit(decorated, "pkg/build.py", "return name.title()", "return name.upper()")
    assert run(decorated) == everything
    assert run(decorated) == set()
