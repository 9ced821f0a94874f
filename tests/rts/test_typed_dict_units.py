"""A ``TypedDict`` class (``total=False`` included) is a binding with a docstring unit of
its own, on real pytest sessions: pyjwt 0f4de5a48c fixed a reference in the docstring of
``jwt.types.Options`` (``class Options(TypedDict, total=False)``), which every module of the
package imports, and all 333 tests ran; the class keyword kept the class in the module
unit. Its metaclass copies the namespace and reads no docstring."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "pkg/types.py",
        '''
        from typing import TypedDict


        class Options(TypedDict, total=False):
            """Options for :func:`decode` (first draft)."""

            verify: bool
            """Whether to verify (first draft)."""


        class Plain(TypedDict):
            """Always complete."""

            size: int
        ''',
    )
    write(
        pytester,
        "pkg/__init__.py",
        """
        from .types import Options, Plain


        def decode(token, options=None):
            options = options or Options(verify=True)
            return token if options["verify"] else None


        def twice(x):
            return 2 * x
        """,
    )
    write(
        pytester,
        "test_pkg.py",
        """
        import pkg


        def test_decode():
            assert pkg.decode("t") == "t"


        def test_keys():
            assert pkg.Options.__optional_keys__ == frozenset({"verify"})


        def test_twice():
            assert pkg.twice(2) == 4


        def test_doc():
            assert "decode" in pkg.Options.__doc__
        """,
    )
    write(
        pytester,
        "test_lazy.py",
        """
        def test_lazy():  # imports when it runs: a broken import fails the test, not collection
            import pkg

            assert pkg.twice(1) == 2
        """,
    )
    assert run(pytester) == {"test_decode", "test_keys", "test_twice", "test_doc", "test_lazy"}
    return pytester


def test_a_docstring_edit_selects_its_readers_only(project: pytest.Pytester) -> None:
    edit(project, "pkg/types.py", "(first draft).", "(second draft).")
    assert run(project) == {"test_doc"}


def test_an_attribute_docstring_edit_selects_its_readers_only(project: pytest.Pytester) -> None:
    edit(project, "pkg/types.py", "Whether to verify (first draft).", "Whether to verify.")
    assert run(project) == {"test_doc"}


def test_a_key_edit_selects_the_class_readers(project: pytest.Pytester) -> None:
    edit(project, "pkg/types.py", "verify: bool", "verify: bool\n    leeway: int")
    assert run(project) == {"test_decode", "test_keys", "test_doc"}


def test_the_total_keyword_selects_the_class_readers(project: pytest.Pytester) -> None:
    edit(project, "pkg/types.py", "total=False", "total=True")
    assert run(project) == {"test_decode", "test_keys", "test_doc"}


def test_a_keyword_that_breaks_the_class_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/types.py", "total=False", "total=False, bogus=2")
    assert run(project, "test_lazy.py") == {"test_lazy"}
