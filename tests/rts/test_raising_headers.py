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


def test_a_subclass_of_a_descriptor_class_selects_its_readers(pytester: pytest.Pytester) -> None:
    # ``__set_name__`` runs for a descriptor put in a class body, not when the class is
    # subclassed: cachetools bb72c21aab added ``DeprecatedDescriptorBase(DescriptorBase)``
    # and the new subclass counted as able to raise at import (every importer ran).
    write(
        pytester,
        "desc.py",
        """
        class Descriptor:
            def __set_name__(self, owner, name):
                self.name = name


        class Special(Descriptor):
            def __init__(self, extra=None):
                self.extra = extra


        def twice(x):
            return 2 * x
        """,
    )
    write(
        pytester,
        "test_desc.py",
        """
        def test_twice():
            import desc

            assert desc.twice(2) == 4


        def test_special():
            import desc

            assert desc.Special().extra is None
        """,
    )
    assert run(pytester) == {"test_twice", "test_special"}
    edit(pytester, "desc.py", "extra=None", "extra=None, more=()")
    assert run(pytester) == {"test_special"}
