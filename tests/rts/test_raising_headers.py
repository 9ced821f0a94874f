"""A ``def`` whose header may raise at import (a default read from a project module) puts
only what may raise into the module unit, on real pytest sessions: a new parameter with a
constant default changes whether the import fails no more than the rest of the signature
does. cachetools bb72c21aab gave ``cachedmethod(cache, key=keys.methodkey, ...)`` a new
``info=False``: every importer ran (206 of 249 tests) where the readers of
``cachedmethod`` were the ones that could see it."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "keys.py", "def hashkey(x):\n    return x\n\n\ndef other(x):\n    return -x\n")
    write(
        pytester,
        "mod.py",
        """
        import keys


        def cached(x, key=keys.hashkey):
            return key(x)


        def plain(x):
            return x + 1
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        def test_cached():
            import mod

            assert mod.cached(2) == 2


        def test_plain():
            import mod

            assert mod.plain(1) == 2
        """,
    )
    assert run(pytester) == {"test_cached", "test_plain"}
    return pytester


def test_a_parameter_that_cannot_raise_selects_the_readers_of_the_function(
    project: pytest.Pytester,
) -> None:
    edit(project, "mod.py", "key=keys.hashkey)", "key=keys.hashkey, info=False)")
    assert run(project) == {"test_cached"}
    edit(project, "mod.py", "def cached(x,", "def cached(x: int,")
    assert run(project) == {"test_cached"}


def test_what_may_raise_still_selects_every_importer(project: pytest.Pytester) -> None:
    edit(project, "mod.py", "key=keys.hashkey)", "key=keys.other)")
    assert run(project) == {"test_cached", "test_plain"}
    edit(project, "mod.py", "key=keys.other)", "key=keys.other, info=keys.missing)")
    assert run(project) == {"test_cached", "test_plain"}  # both fail: the import raises
