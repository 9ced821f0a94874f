"""``__doc__`` spelled as a name at a module's top level (``__doc__ = f"..."``, pyjwt's
``jwt/__init__.py``) or read as a global in a function is that module's docstring, never a
function's: a test importing the module does not see every function's docstring (pyjwt
0f4de5a48c, a ``TypedDict`` docstring edit, selected all 333 tests against testmon's 0)."""

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
        from .core import add, usage

        NAME = "pkg"
        __doc__ = f"{NAME} tools"
        """,
    )
    write(
        pytester,
        "pkg/core.py",
        '''
        def add(a, b):
            """Add two numbers."""
            return a + b


        def usage():
            """How to use the module."""
            return __doc__
        ''',
    )
    write(
        pytester,
        "test_pkg.py",
        """
        import pkg


        def test_add():
            assert pkg.add(1, 2) == 3


        def test_usage():
            assert pkg.usage() is None


        def test_module_doc():
            assert pkg.__doc__ == "pkg tools"


        def test_function_doc():
            assert pkg.add.__doc__.startswith("Add")
        """,
    )
    return pytester


_ALL = {"test_add", "test_usage", "test_module_doc", "test_function_doc"}


def test_a_docstring_edit_skips_the_tests_reading_only_module_docs(
    project: pytest.Pytester,
) -> None:
    assert run(project) == _ALL
    edit(project, "pkg/core.py", "Add two numbers.", "Add two numbers together.")
    assert run(project) == {"test_function_doc"}


def test_the_rebound_module_doc_still_selects_its_importers(project: pytest.Pytester) -> None:
    assert run(project) == _ALL
    edit(project, "pkg/__init__.py", '"pkg"', '"pkg2"')
    assert run(project) == _ALL
