"""``sys.modules[name].attr`` reads one attribute of a module found by name: no lookup of
any name (``rts.runtime_lookups``). funcy's ``__init__`` builds its ``__all__`` at import
from ``lcat(sys.modules['funcy.' + m].__all__ for m in modules)``: every test importing
funcy read every name of every module, and any new function selected all of them
(f9e341726e: 184 tests for a new ``IS_PYPY`` nobody else reads; testmon 12)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "pkg/__init__.py",
        """
        import sys

        from .one import *
        from .two import *

        parts = ("one", "two")
        __all__ = list(x for m in parts for x in sys.modules["pkg." + m].__all__)
        """,
    )
    write(pytester, "pkg/one.py", '__all__ = ["first"]\n\n\ndef first():\n    return 1\n')
    write(pytester, "pkg/two.py", '__all__ = ["second"]\n\n\ndef second():\n    return 2\n')
    write(
        pytester,
        "test_pkg.py",
        """
        import pkg


        def test_first():
            assert pkg.first() == 1


        def test_second():
            assert pkg.second() == 2


        def test_listed():
            assert pkg.__all__ == ["first", "second"]
        """,
    )
    assert run(pytester) == {"test_first", "test_second", "test_listed"}
    return pytester


def test_a_new_function_nobody_reads_selects_nothing(project: pytest.Pytester) -> None:
    edit(project, "pkg/one.py", "def first", "def helper():\n    return 0\n\n\ndef first")
    assert run(project) == set()


def test_a_changed_listing_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "pkg/two.py", '["second"]', '["second", "third"]\nthird = 3')
    assert "test_listed" in run(project)


def test_a_module_handed_on_reads_every_name(project: pytest.Pytester) -> None:
    edit(
        project,
        "pkg/__init__.py",
        'sys.modules["pkg." + m].__all__',
        'vars(sys.modules["pkg." + m])["__all__"]',
    )
    run(project)
    edit(project, "pkg/one.py", "def first", "def helper():\n    return 0\n\n\ndef first")
    assert run(project) == {"test_first", "test_second", "test_listed"}
