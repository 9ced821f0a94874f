"""``name = getattr(library_module, "attr", _fallback)`` at import: the builtin returns the
fallback when the attribute is missing and never calls it nor reads anything of it.
itsdangerous c96e82d4 fixed a typo in the docstring of ``_compat._constant_time_compare``,
the fallback of ``constant_time_compare = getattr(hmac, "compare_digest", ...)``: reks ran
all 417 tests, testmon 3. The statement is a call site of the module unit (it calls what the
module does not define), so every name it read counted as handed to library code
(``SeenBodies._handed_names``), and every importer depended on the fallback's body and
docstring; the fallback is handed to nothing (``rts.getattr_fallbacks``). Real pytest
sessions on a temporary project."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "compat.py",
        '''
        import hmac


        def _fallback_compare(a, b):
            """Compare in constant time."""
            return a == b


        compare = getattr(hmac, "compare_digest", _fallback_compare)
        ''',
    )
    write(
        pytester,
        "docs.py",
        '''
        def _described():
            """Described here."""


        DOC = getattr(_described, "__doc__")
        ''',
    )
    write(
        pytester,
        "test_compat.py",
        """
        import compat


        def test_compare():
            assert compat.compare(b"a", b"a")
        """,
    )
    write(
        pytester,
        "test_docs.py",
        """
        import docs


        def test_doc():
            assert docs.DOC == "Described here."
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_compare", "test_doc"}
    return pytester


def test_a_fallback_that_never_ran_selects_no_test_for_its_body(project: pytest.Pytester) -> None:
    edit(project, "compat.py", "return a == b", "return a is b")
    edit(project, "compat.py", "Compare in constant time.", "Compare, in constant time.")
    ran, failed = ran_and_failed(project)
    assert "test_compare" not in ran and failed == set()


def test_the_object_getattr_reads_is_still_handed(project: pytest.Pytester) -> None:
    # Guard: ``getattr(_described, "__doc__")`` reads the function's docstring.
    edit(project, "docs.py", "Described here.", "Described there.")
    ran, failed = ran_and_failed(project)
    assert "test_doc" in ran and failed == {"test_doc"}


def test_a_fallback_that_ran_selects(project: pytest.Pytester) -> None:
    # Guard: with no such attribute the fallback is what the test calls.
    edit(project, "compat.py", '"compare_digest"', '"no_such_compare"')
    run(project, flag="--reks-all")
    edit(project, "compat.py", "return a == b", "return a != b")
    ran, failed = ran_and_failed(project)
    assert "test_compare" in ran and failed == {"test_compare"}


def test_a_fallback_that_is_also_the_object_stays_handed(pytester: pytest.Pytester) -> None:
    # Guard: the statement reads the name besides as the fallback (getattr reads the
    # function's docstring here).
    write(
        pytester,
        "own.py",
        '''
        def _fallback_compare(a, b):
            """Compare in constant time."""
            return a == b


        DOC = getattr(_fallback_compare, "__doc__", _fallback_compare)
        ''',
    )
    write(
        pytester,
        "test_own.py",
        """
        import own


        def test_doc():
            assert own.DOC == "Compare in constant time."
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_doc"}
    edit(pytester, "own.py", "Compare in constant time.", "Compare, in constant time.")
    ran, failed = ran_and_failed(pytester)
    assert "test_doc" in ran and failed == {"test_doc"}
