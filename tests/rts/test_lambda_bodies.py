"""A call in a lambda's body runs when the lambda does, not when its statement runs
(``purity.is_pure``), and ``functools.partial`` only wraps: a test class whose decorators
pass lambdas and partials is a binding, on a real pytest session (itsdangerous's
``TestSerializer`` parametrizes with ``partial(Serializer, ...)`` and lambdas calling a
helper; kept in the module unit, everything it read reached every test of the files
importing it: a ``TypeVar`` edit ran every test, 4dffa1963f)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def test_a_class_passing_lambdas_and_partials_is_a_binding(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "mod.py",
        """
        import typing as t

        T = t.TypeVar("T", bound=str)


        class Box(t.Generic[T]):
            def get(self):
                return 1


        def helper(s):
            return s
        """,
    )
    write(
        pytester,
        "test_a.py",
        """
        from functools import partial

        import pytest

        from mod import Box, helper


        class TestBox:
            @pytest.fixture(params=(Box, partial(Box)))
            def box(self, request):
                return request.param()

            @pytest.mark.parametrize("f", [lambda s: helper(s)])
            def test_get(self, box, f):
                assert f(box.get()) == 1


        def test_helper():
            assert helper(2) == 2
        """,
    )
    every = {"TestBox::test_get[Box-<lambda>]", "TestBox::test_get[box1-<lambda>]", "test_helper"}
    assert run(pytester) == every
    # ``partial(Box)`` would raise on a ``Box`` that is no callable: every test of the
    # module depends on ``Box`` staying one undecorated class of ``mod``, not on what its
    # statement reads (``rts.partial_callees``); the tests given it read it whole.
    edit(pytester, "mod.py", "bound=str", "bound=bytes")
    assert run(pytester) == every - {"test_helper"}
    edit(pytester, "test_a.py", "lambda s: helper(s)", "lambda s: helper(s) * 1")
    assert run(pytester) == every - {"test_helper"}
