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

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

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
    assert run(pytester) == {"test_first", "test_hit"}
