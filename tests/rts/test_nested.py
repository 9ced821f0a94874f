"""Nested functions are units of their own: a change inside one selects only the tests
that ran it, while a change in the function around it (a decorator factory, a closure's
variables) selects every test that ran either."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def nested(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    write(
        pytester,
        "lib.py",
        """
        def logged(prefix):
            tag = prefix + ":"

            def decorate(fn):
                def wrapper(*args):
                    return tag + str(fn(*args))

                return wrapper

            return decorate


        @logged("sum")
        def total(a, b):
            return a + b


        def parse(text, strict):
            def number(part):
                return int(part)

            def loose(part):
                return int(part or 0)

            pick = number if strict else loose
            return [pick(p) for p in text.split(",")]
        """,
    )
    # Tests of the same file share what ran while it was collected (the decorators, here):
    # test_total gets a file of its own.
    write(
        pytester,
        "test_deco.py",
        """
        from lib import total


        def test_total():
            assert total(1, 2) == "sum:3"
        """,
    )
    write(
        pytester,
        "test_lib.py",
        """
        from lib import parse


        def test_strict():
            assert parse("1,2", True) == [1, 2]


        def test_loose():
            assert parse("1,", False) == [1, 0]
        """,
    )
    assert run(pytester) == {"test_total", "test_strict", "test_loose"}
    return pytester


def test_nested_body_edit_selects_only_its_callers(nested: pytest.Pytester) -> None:
    edit(nested, "lib.py", "return int(part or 0)", "return int(part or '0')")
    assert run(nested) == {"test_loose"}
    edit(nested, "lib.py", "return int(part)", "return int(part.strip())")
    assert run(nested) == {"test_strict"}


def test_outer_edit_selects_users_of_what_it_made(nested: pytest.Pytester) -> None:
    # `logged` and `decorate` ran at import, before any test; test_total only runs
    # `wrapper`, yet what they computed is what it returns. They ran while `lib` was
    # imported: every test of `lib` depends on them (its import footprint).
    edit(nested, "lib.py", 'tag = prefix + ":"', 'tag = prefix + "="')
    assert run(nested) == {"test_total", "test_strict", "test_loose"}
    edit(nested, "lib.py", 'tag = prefix + "="', 'tag = prefix + ":"')
    assert run(nested) == {"test_total", "test_strict", "test_loose"}
    edit(
        nested,
        "lib.py",
        "pick = number if strict else loose",
        "pick = loose if not strict else number",
    )
    assert run(nested) == {"test_strict", "test_loose"}


def test_a_lookup_by_string_finds_no_nested_function(pytester: pytest.Pytester) -> None:
    # jinja's _install_null: a local fallback ``def pgettext`` removed. A lookup by string
    # (on a module, a class, an instance) cannot find a function's local: only the tests
    # that ran the function around it (its body holds the nested def line) see it.
    write(
        pytester,
        "lib.py",
        """
        def install():
            def fallback(s):
                return s

            return fallback


        def by_name(name):
            return globals()[name]
        """,
    )
    write(
        pytester,
        "test_lib.py",
        """
        import lib


        def test_install():
            assert lib.install()("x") == "x"


        def test_by_name():
            assert lib.by_name("by_name") is lib.by_name
        """,
    )
    assert run(pytester) == {"test_install", "test_by_name"}
    edit(pytester, "lib.py", "def fallback(s):\n        return s", "fallback = str")
    edit(pytester, "lib.py", "return fallback", "return fallback  # the builtin")
    assert run(pytester) == {"test_install"}
