"""A cache holder that died must not hide a new one: ``rts.filled_containers`` keeps which
holders' containers it watches by identity, and a holder born where a dead one was (the
allocator reuses the address at once) would be taken as watched already, its cache left
unwatched. Checked on a real pytest session."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

LEXING = """
import re


class Cache:
    # Unused slots: an instance of a size few other objects have, so that the next one
    # made after one died is born at its address.
    __slots__ = ("__dict__", *(f"spare{i}" for i in range(120)))

    def __init__(self):
        self._mapping = {}

    def get(self, key):
        return self._mapping.get(key)

    def put(self, key, value):
        self._mapping[key] = value


_cache = Cache()


def compile_rules(separator):
    return re.compile(re.escape(separator))
"""

# Imported inside a test, after ``test_a_drop`` let the holder of ``lexing`` (watched since
# the first test) die: of many new holders, this module keeps the one born where it was.
LATE = """
import lexing

DEAD_AT = getattr(lexing, "DEAD_AT", None)  # none when run without ``test_a_drop``
_spares = [lexing.Cache() for _ in range(100)]
_cache = next((c for c in _spares if id(c) == DEAD_AT), lexing.Cache())
del _spares


def get_lexer(separator):
    lexer = _cache.get(separator)
    if lexer is None:
        lexer = lexing.compile_rules(separator)
        _cache.put(separator, lexer)
    return lexer
"""


def test_a_holder_born_where_a_dead_one_was_is_watched(pytester: pytest.Pytester) -> None:
    """``test_c_fill`` builds the lexer into the new holder's cache, ``test_d_hit`` gets it
    from there: a change of ``compile_rules`` fails both in a whole run. While the dead
    holder was not kept, ``late`` kept the one born at its address (recorded unwatched:
    ``test_d_hit`` was not selected)."""
    write(pytester, "lexing.py", LEXING)
    write(pytester, "late.py", LATE)
    write(
        pytester,
        "test_lexing.py",
        """
        import lexing


        def test_a_drop():
            lexing.DEAD_AT = id(lexing._cache)
            lexing._cache = None


        def test_b_import():
            import late

            assert late.get_lexer


        def test_c_fill():
            import late

            assert late.get_lexer("+").split("a+b") == ["a", "b"]


        def test_d_hit():
            import late

            assert late.get_lexer("+").split("c+d") == ["c", "d"]
        """,
    )
    pytester.syspathinsert()
    assert ran_and_failed(pytester) == (
        {"test_a_drop", "test_b_import", "test_c_fill", "test_d_hit"},
        set(),
    )
    edit(pytester, "lexing.py", "re.escape(separator))", "re.escape(separator) + 'x')")
    assert run(pytester) == {"test_c_fill", "test_d_hit"}
    assert ran_and_failed(pytester, "--reks-all")[1] == {"test_c_fill", "test_d_hit"}
