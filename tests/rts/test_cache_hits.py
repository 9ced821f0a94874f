"""A value an earlier test cached (``functools.lru_cache``, ``functools.cache``) reaches a
later test that only hits the cache: that test never runs the code that computed it, yet in
a full run its outcome follows that code. It depends on what ran in the tests that filled
the cache."""

from __future__ import annotations

import sys

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


def _cached_module(pytester: pytest.Pytester, definition: str, more: str) -> None:
    """``mod.py``: ``compute`` returning 1, ``definition`` calling it, then ``more``."""
    write(
        pytester,
        "mod.py",
        f"import functools\n\n\ndef compute():\n    return 1\n\n\n{definition}\n\n{more}",
    )


@pytest.mark.parametrize("shape", sorted(CACHED))
def test_a_test_hitting_a_cache_an_earlier_test_filled_depends_on_what_filled_it(
    pytester: pytest.Pytester, shape: str
) -> None:
    definition, call = CACHED[shape]
    _cached_module(pytester, definition, "def other():\n    return 0\n")
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


@pytest.mark.skipif(sys.version_info < (3, 12), reason="spans are told on 3.12+")
@pytest.mark.parametrize("shape", sorted(CACHED))
def test_a_cache_hit_depends_on_what_ran_inside_the_cached_call_not_on_the_rest_of_the_filler(
    pytester: pytest.Pytester, shape: str
) -> None:
    # The filler ran ``compute`` before the cached call too (a code object already seen in
    # the test), and ``setup`` outside it: the value cannot depend on ``setup``.
    definition, call = CACHED[shape]
    _cached_module(pytester, definition, "def setup():\n    return 5\n")
    write(
        pytester,
        "test_mod.py",
        f"""
        import mod


        def test_fills():
            assert mod.setup() == 5
            assert mod.compute() == 1
            assert {call} >= 1


        def test_hits():
            assert {call} == 1
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_fills", "test_hits"}
    edit(pytester, "mod.py", "return 5", "return 6")
    assert run(pytester) == {"test_fills"}
    edit(pytester, "mod.py", "return 1", "return 2")
    assert run(pytester) == {"test_fills", "test_hits"}


@pytest.mark.skipif(sys.version_info < (3, 12), reason="spans are told on 3.12+")
def test_a_cached_call_that_raises_ends_its_span_and_recording_goes_on(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "mod.py",
        """
        import functools


        def check(x):
            if x < 0:
                raise ValueError(x)
            return x


        @functools.lru_cache(maxsize=None)
        def cached(x):
            return check(x) * 2


        def after():
            return 3
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import pytest

        import mod


        def test_fills():
            with pytest.raises(ValueError):
                mod.cached(-1)
            assert mod.after() == 3
            assert mod.cached(1) == 2


        def test_hits():
            assert mod.cached(1) == 2
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_fills", "test_hits"}
    edit(pytester, "mod.py", "return 3", "return 4")
    assert run(pytester) == {"test_fills"}
    edit(pytester, "mod.py", "* 2", "* 3")
    assert run(pytester) == {"test_fills", "test_hits"}


def test_a_cached_value_changed_after_the_call_depends_on_what_changed_it(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "mod.py",
        """
        import functools


        @functools.lru_cache(maxsize=None)
        def cached():
            return [1]


        def extend(values):
            values.append(2)
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_fills():
            mod.extend(mod.cached())


        def test_hits():
            assert mod.cached() == [1, 2]
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_fills", "test_hits"}
    edit(pytester, "mod.py", "append(2)", "append(3)")
    assert run(pytester) == {"test_fills", "test_hits"}
