"""A class body that makes an instance of a module class with no ``__init__``/``__new__``
(cachetools: ``__size = _DefaultSize()`` in ``Cache``) is still a binding and proved
not to raise, so an edit in a subclass selects the subclass's readers, not every importer
(cachetools 51921a4812 changed ``_TimedCache.__init__``'s header: all 277 tests ran)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

ALL = {"test_twice", "test_cache", "test_timed"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "core.py",
        """
        import collections.abc


        class _Size:
            __slots__ = ()

            def __getitem__(self, key):
                return 1


        class Cache(collections.abc.MutableMapping):
            __marker = object()
            __size = _Size()

            def __init__(self, maxsize):
                self.maxsize, self.data = maxsize, {}

            def __getitem__(self, key):
                return self.data[key]

            def __setitem__(self, key, value):
                self.data[key] = value

            def __delitem__(self, key):
                del self.data[key]

            def __iter__(self):
                return iter(self.data)

            def __len__(self):
                return len(self.data)


        class TimedCache(Cache):
            def __init__(self, maxsize, timer=None):
                Cache.__init__(self, maxsize)
                self.timer = timer


        def twice(x):
            return 2 * x
        """,
    )
    write(
        pytester,
        "test_core.py",
        """
        import core


        def test_twice():
            assert core.twice(2) == 4


        def test_cache():
            assert len(core.Cache(2)) == 0


        def test_timed():
            assert core.TimedCache(2).maxsize == 2
        """,
    )
    assert run(pytester) == ALL
    return pytester


def test_a_subclass_header_edit_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "core.py", "timer=None", "timer=0")
    assert run(project) == {"test_timed"}


def test_an_init_in_the_made_class_selects_every_importer(project: pytest.Pytester) -> None:
    # ``_Size()`` now runs code of the module at import: Cache is no binding any more.
    edit(project, "core.py", "    __slots__ = ()", "    def __init__(self):\n        pass")
    assert run(project) == ALL


def test_a_nested_class_body_reads_nothing_for_every_importer(project: pytest.Pytester) -> None:
    # A nested class's body runs at import like its class's; its constants name it
    # (``__qualname__`` "TimedCache._Timer"), which read as names made every importer
    # depend on ``TimedCache`` (cachetools ``_TimedCache._Timer``, ``TTLCache._Link``).
    nested = (
        "    class _Timer:\n        def __init__(self, timer):\n            self.timer = timer\n\n"
    )
    edit(project, "core.py", "class TimedCache(Cache):\n", "class TimedCache(Cache):\n" + nested)
    assert run(project, flag="--reks-all") == ALL
    edit(project, "core.py", "timer=None", "timer=0")
    assert run(project) == {"test_timed"}
