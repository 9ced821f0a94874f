"""The steps from a name read to its bindings, shared between sets of modules
(``rts.binding_steps``): a test depends on the binding of a name in every module it
depends on that binds it, among them a module indexed after the name's step was first
taken, and on no binding in a module it does not depend on."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    # Test files run in name order: the first reads LIMIT where only alpha is indexed,
    # the second indexes beta (which binds it too), the third reads it with alpha alone.
    write(pytester, "alpha.py", "LIMIT = 1\n\n\ndef limit():\n    return LIMIT\n")
    write(pytester, "beta.py", "LIMIT = 2\n")
    write(
        pytester,
        "test_1_alpha.py",
        """
        import alpha


        def test_alpha_first():
            assert alpha.LIMIT == alpha.limit() == 1
        """,
    )
    write(
        pytester,
        "test_2_both.py",
        """
        import alpha
        import beta


        def test_both():
            assert (alpha.LIMIT, beta.LIMIT) == (1, 2)
        """,
    )
    write(
        pytester,
        "test_3_alpha.py",
        """
        import alpha


        def test_alpha_again():
            assert alpha.LIMIT == 1
        """,
    )
    assert run(pytester) == {"test_alpha_first", "test_both", "test_alpha_again"}
    return pytester


def test_a_binding_in_a_module_indexed_later_selects_its_reader(
    project: pytest.Pytester,
) -> None:
    edit(project, "beta.py", "LIMIT = 2", "LIMIT = 3")
    assert ran_and_failed(project) == ({"test_both"}, {"test_both"})


def test_a_binding_in_a_module_the_test_does_not_depend_on_selects_nothing(
    project: pytest.Pytester,
) -> None:
    edit(project, "beta.py", "LIMIT = 2", "LIMIT = 1 + 1")
    assert run(project) == {"test_both"}


def test_the_binding_in_the_module_read_selects_every_reader(project: pytest.Pytester) -> None:
    edit(project, "alpha.py", "LIMIT = 1", "LIMIT = 4")
    ran, failed = ran_and_failed(project)
    assert ran == failed == {"test_alpha_first", "test_both", "test_alpha_again"}
