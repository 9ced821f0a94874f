"""Recording must not change what a test sees: ``rts.filled_containers`` compares the
entries of module-level dicts around each test, and a copy of them that held the values
kept alive what the test itself dropped. dateutil's ``test_tzoffset_weakref`` evicts an
instance from ``tzoffset``'s strong cache and asserts it is collected: it failed under
``--reks`` only, after an earlier test had put the instance in the cache."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

LIB = """
from collections import OrderedDict

_CACHE = {}
_ORDERED = OrderedDict()


class Thing:
    pass


def get(key, cache=None):
    cache = _CACHE if cache is None else cache
    if key not in cache:
        cache[key] = Thing()
    return cache[key]


def evict(key, cache=None):
    del (_CACHE if cache is None else cache)[key]


def ordered():
    return _ORDERED
"""

TESTS = """
import gc
import weakref

import lib


def test_fill():
    assert lib.get("a") is lib.get("a")
    assert lib.get("b", lib.ordered())


def test_released():
    ref = weakref.ref(lib.get("a"))
    lib.evict("a")
    gc.collect()
    assert ref() is None


def test_released_from_a_dict_subclass():
    ref = weakref.ref(lib.get("b", lib.ordered()))
    lib.evict("b", lib.ordered())
    gc.collect()
    assert ref() is None
"""


def test_a_value_a_test_drops_from_a_module_dict_is_collected_while_recording(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "lib.py", LIB)
    write(pytester, "test_cache.py", TESTS)
    result = pytester.inline_run("--reks-all", "-p", "no:randomly")
    passed = {r.nodeid.split("::")[1] for r in result.getreports() if r.when == "call"}
    assert passed == {"test_fill", "test_released", "test_released_from_a_dict_subclass"}
    result.assertoutcome(passed=3)


def test_an_entry_rebound_after_its_value_was_collected_is_still_seen(
    pytester: pytest.Pytester,
) -> None:
    # Without the values, the snapshot compares identities: an entry dropped, its object
    # collected and a new one put there (CPython often gives it the same address) is a
    # change all the same, so the reader depends on the test that refilled it.
    write(
        pytester,
        "lib.py",
        """
        _CACHE = {}


        class Thing:
            def __init__(self, n):
                self.n = n


        def refill():
            for _ in range(5):
                _CACHE.pop("k", None)  # freed here: no cycle
                _CACHE["k"] = Thing(len(_CACHE))
            return _CACHE["k"]


        def fill():
            _CACHE["k"] = Thing(0)


        def read():
            return _CACHE["k"].n
        """,
    )
    write(
        pytester,
        "test_refill.py",
        """
        import lib


        def test_0_fill():
            lib.fill()


        def test_1_refill():
            assert lib.refill()


        def test_2_read():
            assert lib.read() == 0
        """,
    )
    assert run(pytester, "-p", "no:randomly") == {"test_0_fill", "test_1_refill", "test_2_read"}
    edit(pytester, "lib.py", "Thing(len(_CACHE))", "Thing(len(_CACHE) + 1)")
    assert "test_2_read" in run(pytester, "-p", "no:randomly")
