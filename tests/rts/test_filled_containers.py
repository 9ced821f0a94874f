"""A value an earlier test left in a module-level dict, set or list (a cache filled on first
use) reaches a later test that only reads it: that test never runs the code that computed
the value, yet in a full run its outcome follows that code. It depends on what ran in the
tests that filled the entries it read (``rts.filled_containers``)."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

# Keys read are told apart on 3.12+ (sys.monitoring); before, a reader reads every entry.
KEYS_SEEN = sys.version_info >= (3, 12)

MODULE = """
def double(k):
    return k * 2


def triple(k):
    return k * 3


def slow(k):
    return double(k) if k < 10 else triple(k)


_CACHE = {{}}


def cached(k):
{body}


def other():
    return 0
"""

READS = {
    "membership": ("    if k not in _CACHE:\n        _CACHE[k] = slow(k)\n    return _CACHE[k]"),
    "get": (
        "    found = _CACHE.get(k)\n    if found is None:\n"
        "        found = _CACHE[k] = slow(k)\n    return found"
    ),
    "setdefault": "    try:\n        return _CACHE[k]\n    except KeyError:\n"
    "        return _CACHE.setdefault(k, slow(k))",
}

TESTS = """
import mod


def test_fills():
    assert mod.cached(3) == 6


def test_hits():
    assert mod.cached(3) == 6


def test_own_key():
    assert mod.cached(20) == 60


def test_other():
    assert mod.other() == 0
"""


@pytest.mark.parametrize("reads", sorted(READS))
def test_a_test_reading_an_entry_an_earlier_test_filled_depends_on_what_filled_it(
    pytester: pytest.Pytester, reads: str
) -> None:
    write(pytester, "mod.py", MODULE.format(body=READS[reads]))
    write(pytester, "test_mod.py", TESTS)
    everything = {"test_fills", "test_hits", "test_own_key", "test_other"}
    assert run(pytester, flag="--reks-all") == everything
    edit(pytester, "mod.py", "return k * 2", "return k * 2 + 1")
    # test_own_key read only the entry it filled itself: what filled key 3 is not its.
    expected = (
        {"test_fills", "test_hits"} if KEYS_SEEN else {"test_fills", "test_hits", "test_own_key"}
    )
    assert run(pytester) == expected


def test_a_test_reading_every_entry_depends_on_every_filler(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "mod.py",
        MODULE.format(body=READS["membership"]) + ("\n\ndef known():\n    return sorted(_CACHE)\n"),
    )
    write(
        pytester,
        "test_mod.py",
        TESTS + "\n\ndef test_known():\n    assert 3 in mod.known()\n",
    )
    assert run(pytester, flag="--reks-all") >= {"test_known"}
    edit(pytester, "mod.py", "return k * 2", "return k * 2 + 1")
    assert "test_known" in run(pytester)


def test_a_set_of_names_seen_depends_on_who_added_them(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "mod.py",
        """
        _SEEN = set()


        def note(name):
            _SEEN.add(name.lower())


        def first_time(name):
            return name not in _SEEN


        def other():
            return 0
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_adds():
            mod.note("a")


        def test_asks():
            assert not mod.first_time("a")


        def test_other():
            assert mod.other() == 0
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_adds", "test_asks", "test_other"}
    edit(pytester, "mod.py", "name.lower()", "name.upper()")
    assert run(pytester) == {"test_adds", "test_asks"}


def test_a_container_filled_and_read_within_one_test_adds_nothing(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "mod.py", MODULE.format(body=READS["membership"]))
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_small():
            assert mod.cached(3) == mod.cached(3) == 6


        def test_large():
            assert mod.cached(20) == 60
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_small", "test_large"}
    edit(pytester, "mod.py", "return k * 2", "return k * 2 + 1")
    expected = {"test_small"} if KEYS_SEEN else {"test_small", "test_large"}
    assert run(pytester) == expected


def test_a_container_a_function_holds_as_a_default_is_read_whole(
    pytester: pytest.Pytester,
) -> None:
    body = "    if k not in cache:\n        cache[k] = slow(k)\n    return cache[k]"
    module = MODULE.format(body=body).replace("def cached(k):", "def cached(k, cache=_CACHE):")
    write(pytester, "mod.py", module)
    write(pytester, "test_mod.py", TESTS)
    everything = {"test_fills", "test_hits", "test_own_key", "test_other"}
    assert run(pytester, flag="--reks-all") == everything
    edit(pytester, "mod.py", "return k * 2", "return k * 2 + 1")
    assert run(pytester) == {"test_fills", "test_hits", "test_own_key"}


def test_an_entry_of_another_object_s_container_of_the_same_name_is_not_read(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "mod.py",
        """
        def slow(k):
            return k * 2


        class Memo:
            def __init__(self):
                pass

            def value(self, k):
                if k not in self._cache:
                    self._cache[k] = self.compute(k)
                return self._cache[k]


        class Doubles(Memo):
            _cache = {}

            def compute(self, k):
                return slow(k)


        class Squares(Memo):
            _cache = {}

            def compute(self, k):
                return k * k
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_doubles():
            assert mod.Doubles().value(3) == 6


        def test_doubles_again():
            assert mod.Doubles().value(3) == 6


        def test_squares():
            assert mod.Squares().value(3) == 9
        """,
    )
    assert run(pytester, flag="--reks-all") == {
        "test_doubles",
        "test_doubles_again",
        "test_squares",
    }
    edit(pytester, "mod.py", "return k * 2", "return k * 2 + 1")
    expected = {"test_doubles", "test_doubles_again"}
    assert run(pytester) == (expected if KEYS_SEEN else expected | {"test_squares"})


def test_an_entry_whose_list_an_earlier_test_grew_depends_on_that_test(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "mod.py",
        """
        _HANDLERS = {"save": []}


        def label(name):
            return name.lower()


        def on(event, name):
            _HANDLERS[event].append(label(name))


        def handlers(event):
            return list(_HANDLERS[event])


        def other():
            return 0
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_registers():
            mod.on("save", "Audit")


        def test_lists():
            assert mod.handlers("save") == ["audit"]


        def test_other():
            assert mod.other() == 0
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_registers", "test_lists", "test_other"}
    edit(pytester, "mod.py", "name.lower()", "name.upper()")
    assert run(pytester) == {"test_registers", "test_lists"}
