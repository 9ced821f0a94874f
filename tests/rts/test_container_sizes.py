"""``len(d)`` of a module-level dict sees how many entries it holds, not their values: a later
test taking it depends on what decided which entries earlier tests added or dropped, that is
on what each of them ran up to its last change of the dict, not on what it ran after
(jmespath's ``len(self._CACHE) > self._MAX_SIZE`` after each new expression tied every test to
the whole run of every test that parsed one, interpreting included). So does ``d.keys()``
(``test_drops_oldest``: jmespath's ``_free_cache_entries``), and ``d.pop(k, None)`` whose
value is dropped sees only whether ``k`` was there. A test that changed
the dict where no store was watched (an alias, a method) counts with its whole run.
``test_warm`` fills the dict first: code is watched from the next test on."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

MODULE = """
_CACHE = {}


def make_key():
    return "first"


def compute(key):
    return key.upper()


def finish(value):
    return value + "!"


def _free():
    for key in list(_CACHE)[:50]:
        _CACHE.pop(key, None)


def parse(key):
    found = _CACHE.get(key)
    if found is None:
        found = compute(key)
        _CACHE[key] = found
        if len(_CACHE) > 100:
            _free()
    return found


def late_key():
    return "late"


def add_late():
    table = _CACHE
    table[late_key()] = 1


def size():
    return len(_CACHE)


def drop_oldest():
    for key in list(_CACHE.keys())[:1]:
        _CACHE.pop(key, None)


def forget(key):
    _CACHE.pop(key, None)


def items():
    return list(_CACHE.items())
"""

TESTS = """
import cache


def test_warm():
    cache.drop_oldest()
    cache.parse("warm")
    assert cache.size() == 1


def test_first():
    cache.finish(cache.parse(cache.make_key()))


def test_size():
    assert cache.size() == 2


def test_drops_oldest():
    cache.drop_oldest()


def test_adds_late():
    cache.parse("early")
    cache.add_late()


def test_size_again():
    assert cache.size() == 3
"""

EVERY_TEST = {
    "test_warm",
    "test_first",
    "test_size",
    "test_drops_oldest",
    "test_adds_late",
    "test_size_again",
}


@pytest.fixture
def sized(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "cache.py", MODULE)
    write(pytester, "test_cache.py", TESTS)
    assert run(pytester, flag="--reks-all") == EVERY_TEST
    return pytester


@pytest.mark.skipif(
    sys.version_info < (3, 12), reason="stores and sizes are watched on 3.12+ (sys.monitoring)"
)
def test_code_run_after_the_last_store_is_no_change_to_a_size(sized: pytest.Pytester) -> None:
    edit(sized, "cache.py", 'value + "!"', 'value + "?"')
    # test_adds_late reads every value (its alias), test_size_again what it read
    assert run(sized) == {"test_first", "test_adds_late", "test_size_again"}


def test_code_deciding_an_added_key_reaches_a_size(sized: pytest.Pytester) -> None:
    edit(sized, "cache.py", 'return "first"', 'return "other"')
    assert {"test_first", "test_size", "test_adds_late", "test_size_again"} <= run(sized)


def test_an_entry_added_through_an_alias_keeps_the_whole_run(sized: pytest.Pytester) -> None:
    edit(sized, "cache.py", 'return "late"', 'return "later"')
    assert {"test_adds_late", "test_size_again"} <= run(sized)


GONE = """
import cache


def test_warm():
    cache.forget("nothing")
    cache.parse("warm")
    assert cache.items()


def test_first():
    cache.finish(cache.parse(cache.make_key()))


def test_forgets():
    cache.forget("first")


def test_items():
    assert [key for key, _ in cache.items()] == ["warm"]
"""


@pytest.mark.skipif(
    sys.version_info < (3, 12), reason="stores and sizes are watched on 3.12+ (sys.monitoring)"
)
def test_an_entry_gone_when_a_test_starts_is_no_value_it_reads(
    pytester: pytest.Pytester,
) -> None:
    """Reading every entry (``items()``) reads the values of those there when the test
    started; one dropped before shows only that it is gone (what added and dropped it).
    ``forget`` drops the value ``pop`` returns: it sees only whether the entry was there."""
    write(pytester, "cache.py", MODULE)
    write(pytester, "test_gone.py", GONE)
    every = {"test_warm", "test_first", "test_forgets", "test_items"}
    assert run(pytester, flag="--reks-all") == every
    edit(pytester, "cache.py", 'value + "!"', 'value + "?"')
    assert run(pytester) == {"test_first"}
    edit(pytester, "cache.py", 'return "first"', 'return "other"')
    assert run(pytester) == every - {"test_warm"}
