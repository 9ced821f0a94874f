"""A value an earlier test cached (``functools.lru_cache``, ``functools.cache``) reaches a
later test that only hits the cache: that test never runs the code that computed it, yet in
a full run its outcome follows that code. It depends on what ran in the tests that filled
the cache."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

CACHED = {
    "function": (
        "@functools.lru_cache(maxsize=None)\ndef cached():\n    return compute()\n",
        "mod.cached()",
    ),
    "method": (
        "class Holder:\n    @functools.cache\n    def cached(self):\n        return compute()\n\n"
        "HOLDER = Holder()\n",
        "mod.HOLDER.cached()",
    ),
}


@pytest.mark.parametrize("shape", sorted(CACHED))
def test_a_test_hitting_a_cache_an_earlier_test_filled_depends_on_what_filled_it(
    pytester: pytest.Pytester, shape: str
) -> None:
    definition, call = CACHED[shape]
    write(
        pytester,
        "mod.py",
        "import functools\n\n\ndef compute():\n    return 1\n\n\n"
        f"{definition}\n\ndef other():\n    return 0\n",
    )
    write(
        pytester,
        "test_mod.py",
        f"""
        import mod


        def test_fills():
            assert {call} >= 1


        def test_hits():
            assert {call} == 1


        def test_other():
            assert mod.other() == 0
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_fills", "test_hits", "test_other"}
    edit(pytester, "mod.py", "return 1", "return 2")
    assert run(pytester) == {"test_fills", "test_hits"}


def test_a_cache_filled_and_hit_within_one_test_adds_nothing(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "mod.py",
        """
        import functools


        @functools.lru_cache(maxsize=None)
        def square(x):
            return x * x


        def other():
            return 0
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_square():
            assert mod.square(3) == mod.square(3) == 9


        def test_other():
            assert mod.other() == 0
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_square", "test_other"}
    edit(pytester, "mod.py", "x * x", "x ** 2")
    assert run(pytester) == {"test_square"}
