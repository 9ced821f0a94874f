"""A value an earlier test left in a cache held by a module-level object (jinja's
``_lexer_cache = LRUCache(50)``: an instance whose ``_mapping`` dict holds each lexer) is
read by later tests that never run the code computing it. In a full run after that code
changed they read the new value, so they depend on it: on jinja a whole-suite recording of
``test_nativetypes.py::test_list_add`` had no ``Lexer.__init__``, ``compile_rules`` or lexer
regexes, which the same test recorded alone has (``rts.held_containers``). Checked on real
pytest sessions."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

# Which key or which object a read sees is told as it runs on 3.12+ (sys.monitoring); before,
# every read counts by the container's name: the precision below is of 3.12+ only.
TOLD = sys.version_info >= (3, 12)

LEXING = """
import re


class Cache:
    def __init__(self):
        self._mapping = {}

    def get(self, key):
        return self._mapping.get(key)

    def put(self, key, value):
        self._mapping[key] = value


_cache = Cache()


def compile_rules(separator):
    return re.compile(re.escape(separator))


def get_lexer(separator):
    lexer = _cache.get(separator)
    if lexer is None:
        lexer = compile_rules(separator)
        _cache.put(separator, lexer)
    return lexer
"""


def test_a_cache_held_by_a_module_level_object_ties_its_readers_to_its_filler(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "lexing.py", LEXING)
    write(
        pytester,
        "test_first.py",
        """
        from lexing import get_lexer


        def test_first():
            assert get_lexer("+").split("a+b") == ["a", "b"]
        """,
    )
    write(
        pytester,
        "test_second.py",
        """
        from lexing import get_lexer


        def test_second():
            assert get_lexer("+").split("c+d") == ["c", "d"]
        """,
    )
    pytester.syspathinsert()
    assert run(pytester) == {"test_first", "test_second"}
    edit(pytester, "lexing.py", "re.escape(separator))", "re.escape(separator) + 'x')")
    assert run(pytester) == {"test_first", "test_second"}  # both fail now


@pytest.mark.skipif(
    sys.version_info < (3, 12), reason="the keys a test reads are told on 3.12+ only"
)
def test_a_reader_of_another_entry_is_not_tied_to_the_filler(pytester: pytest.Pytester) -> None:
    """Precision: a test that got its own lexer (another key) does not depend on what the
    test filling ``+`` ran besides; the one that got ``+`` from the cache does (guard)."""
    write(pytester, "lexing.py", LEXING + "\n\ndef helper():\n    return 1\n")
    write(
        pytester,
        "test_first.py",
        """
        from lexing import get_lexer, helper


        def test_first():
            assert get_lexer("+").split("a+b") == ["a", "b"]
            assert helper() == 1
        """,
    )
    write(
        pytester,
        "test_second.py",
        """
        from lexing import get_lexer


        def test_hit():
            assert get_lexer("+").split("c+d") == ["c", "d"]


        def test_other_key():
            assert get_lexer("-").split("c-d") == ["c", "d"]
        """,
    )
    pytester.syspathinsert()
    assert run(pytester) == {"test_first", "test_hit", "test_other_key"}
    edit(pytester, "lexing.py", "return 1", "return 2")
    assert run(pytester) == {"test_first", "test_hit"} | (set() if TOLD else {"test_other_key"})


CACHES = """
from collections import deque


class Cache:
    def __init__(self, capacity):
        self.capacity = capacity
        self._mapping = {}
        self._order = deque()

    def get(self, key):
        return self._mapping.get(key)

    def put(self, key, value):
        if len(self._mapping) >= self.capacity:
            del self._mapping[self._order.popleft()]
        self._order.append(key)
        self._mapping[key] = value

    def dump(self):
        return dict(self._mapping)


_lexers = Cache(50)
_templates = Cache(1)


def suffix():
    return "!"


def get_lexer(separator):
    lexer = _lexers.get(separator)
    if lexer is None:
        lexer = separator + suffix()
        _lexers.put(separator, lexer)
    return lexer


def dump_first(holders):
    return dict(holders[0]._mapping)
"""


def test_a_read_of_one_cache_object_is_not_tied_to_the_filler_of_another(
    pytester: pytest.Pytester,
) -> None:
    """Precision: two module-level instances of one cache class hold a dict each under the
    same attribute name. A test whose cache stores read every entry of ``_templates``
    (the eviction's ``del self._mapping[self._order.popleft()]``, jinja's ``LRUCache``)
    does not depend on what the test filling ``_lexers`` ran. Guards: a test reading every
    entry of ``_lexers`` itself, and one reading a ``_mapping`` whose object the bytecode
    does not tell (``holders[0]._mapping``), still do, and fail once ``suffix`` changes.
    ``test_fill`` runs ``dump`` and ``dump_first`` first, so that the later tests run them
    watched (code a test is the first to run counts by name: README, Limits)."""
    write(pytester, "caches.py", CACHES)
    write(
        pytester,
        "test_a_fill.py",
        """
        from caches import _templates, dump_first, get_lexer


        def test_fill():
            assert get_lexer("+") == "+!"
            assert _templates.dump() == dump_first([_templates]) == {}
        """,
    )
    write(
        pytester,
        "test_b_read.py",
        """
        from caches import _lexers, _templates, dump_first


        def test_other_object():
            _templates.put("a", 1)
            _templates.put("b", 2)
            assert _templates.get("b") == 2


        def test_same_object():
            assert _lexers.dump() == {"+": "+!"}


        def test_object_not_told():
            assert dump_first([_lexers]) == {"+": "+!"}
        """,
    )
    pytester.syspathinsert()
    every = {"test_fill", "test_other_object", "test_same_object", "test_object_not_told"}
    assert run(pytester) == every
    edit(pytester, "caches.py", 'return "!"', 'return "?"')
    ran, failed = ran_and_failed(pytester)
    guards = {"test_fill", "test_same_object", "test_object_not_told"}
    assert ran == guards | (set() if TOLD else {"test_other_object"})
    assert failed == guards


EVICTING = """
from collections import deque

EVICTED = []


class Logged(dict):
    def __delitem__(self, key):
        EVICTED.append(self[key])
        super().__delitem__(key)


class Cache:
    def __init__(self, mapping):
        self._mapping = mapping
        self._order = deque()

    def get(self, key):
        return self._mapping.get(key)

    def put(self, key, value):
        if self._order and len(self._order) >= 1:
            del self._mapping[self._order.popleft()]
        self._order.append(key)
        self._mapping[key] = value


_warm = Cache({})
_plain = Cache({})
_logged = Cache(Logged())


def tag(value):
    value.append("!")


def fill(cache, key):
    value = [key]
    cache.put(key, value)
    tag(value)  # after the store: it changes the value, not which entries are there
    return value
"""


def test_a_delete_by_a_computed_key_sees_only_which_entries_are_there(
    pytester: pytest.Pytester,
) -> None:
    """Precision: ``del self._mapping[self._order.popleft()]`` (jinja's ``LRUCache``
    eviction) sees only whether the entry is there, not its value: a test evicting the
    entry ``test_fill`` stored does not depend on ``tag``, which ran after the store.
    Guards: a test reading that entry's value does (``tag`` changed it), and so does an
    eviction from a dict whose class has a ``__delitem__`` of its own (it reads the value),
    each failing once ``tag`` changes. ``test_warm`` runs ``put`` first: the stores of code
    a test is the first to run are not watched, and that test counts with its whole run
    for which entries are there (``rts.container_sizes``)."""
    write(pytester, "caches.py", EVICTING)
    write(
        pytester,
        "test_a_fill.py",
        """
        from caches import _logged, _plain, _warm, fill


        def test_warm():
            assert fill(_warm, "x") == ["x", "!"]


        def test_fill():
            assert fill(_plain, "+") == ["+", "!"]
            assert fill(_logged, "+") == ["+", "!"]
        """,
    )
    write(
        pytester,
        "test_b_read.py",
        """
        from caches import EVICTED, _logged, _plain


        def test_value():
            assert _plain.get("+") == ["+", "!"]


        def test_evict_plain():
            _plain.put("-", 1)
            assert _plain.get("-") == 1


        def test_evict_logged():
            _logged.put("-", 1)
            assert EVICTED == [["+", "!"]]
        """,
    )
    pytester.syspathinsert()
    every = {"test_warm", "test_fill", "test_value", "test_evict_plain", "test_evict_logged"}
    assert run(pytester) == every
    edit(pytester, "caches.py", 'value.append("!")', 'value.append("?")')
    ran, failed = ran_and_failed(pytester)
    guards = {"test_warm", "test_fill", "test_value", "test_evict_logged"}
    assert ran == guards | (set() if TOLD else {"test_evict_plain"})
    assert failed == guards
