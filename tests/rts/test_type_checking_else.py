"""The ``else`` of an ``if TYPE_CHECKING:`` binding runs at import, on real pytest sessions:
a statement there that may raise puts its digest into the module unit, as any binding that
may raise does (``rts.import_raise``), so a broken one selects every importer. A
``TypeVar`` of a constant name whose bound is a type cannot raise (itsdangerous binds its
run-time ``TypeVar`` there: editing its bound selects the readers of what it parametrizes,
not every importer)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "mod.py",
        """
        import typing as t

        if t.TYPE_CHECKING:
            T = t.TypeVar("T", bound=t.Union[str, bytes])
        else:
            T = t.TypeVar("T", bound=t.Union[str, bytes])


        class Box(t.Generic[T]):
            def get(self):
                return 1


        def helper():
            return 1
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        def test_helper():  # imports when it runs: a broken import fails the test
            import mod

            assert mod.helper() == 1


        def test_box():
            import mod

            assert mod.Box().get() == 1
        """,
    )
    assert run(pytester) == {"test_helper", "test_box"}
    return pytester


def test_an_else_that_raises_selects_every_importer(project: pytest.Pytester) -> None:
    edit(project, "mod.py", '    T = t.TypeVar("T", bound=t.Union[str, bytes])\n\n', "")
    edit(project, "mod.py", "else:\n", 'else:\n    T = t.TypeVar("T", bound=Missing)\n\n')
    assert run(project) == {"test_helper", "test_box"}


def test_a_type_var_bound_edit_selects_the_readers_of_its_class(
    project: pytest.Pytester,
) -> None:
    edit(project, "mod.py", "t.Union[str, bytes])\n\n", "str | bytes)\n\n")
    assert run(project) == {"test_box"}
