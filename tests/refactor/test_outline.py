"""Offers from a module's outline (issue 15 item 7): the same as from the whole module's
syntax tree, at every place; from an outline of an earlier text only where that text
holds the statements around the cursor unchanged."""

from __future__ import annotations

import ast
import json

import pytest

from lsp_server.refactor import outline as outline_module
from lsp_server.refactor.actions import offers_at
from lsp_server.refactor.outline import (
    module_facts,
    outline_from_wire,
    outline_of,
    outline_to_wire,
)
from lsp_server.refactor.outline_offers import offers_in_outline, offers_without_outline
from tests.refactor.test_offers import SOURCE

DECORATED = """\
import functools  # the module's imports
x = 1; y = 2


@functools.cache
def cached(a):
    # a comment inside
    return a + x

# a comment between statements
class Box:
    size: int = 3
"""


def test_an_earlier_outline_serves_the_places_an_edit_left_unchanged() -> None:
    outline = outline_of(SOURCE)
    assert outline is not None
    at = SOURCE.index("def deposit") + 5
    expected = offers_at(SOURCE, at)
    appended = SOURCE + "z = 3\n"
    assert offers_in_outline(appended, outline, at, outlined=SOURCE) == expected
    inserted = "import sys\n" + SOURCE
    moved = offers_in_outline(inserted, outline, at + 11, outlined=SOURCE)
    assert moved == offers_at(inserted, at + 11)
    # An edit inside the statement at the cursor: the earlier outline says nothing there.
    edited = SOURCE.replace("total = self.balance", "total = 2 * self.balance")
    assert offers_in_outline(edited, outline, at, outlined=SOURCE) is None


def parsed_at(monkeypatch: pytest.MonkeyPatch, big: str, at: int) -> list[int]:
    """The lengths of the texts parsed to list the offers at ``at`` from ``big``'s outline
    (the offers being those of the whole module)."""
    outline = outline_of(big)
    assert outline is not None
    parsed: list[int] = []
    real_parse = outline_module.parse_python

    def counted(source: str) -> ast.Module:
        parsed.append(len(source))
        return real_parse(source)

    monkeypatch.setattr(outline_module, "parse_python", counted)
    offers = offers_in_outline(big, outline, at)
    assert offers and offers == offers_at(big, at)
    return parsed


def test_only_the_statements_around_the_cursor_are_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    big = "".join(f"def f{i}(a, b):\n    return a + b * {i}\n\n" for i in range(2_000))
    parsed = parsed_at(monkeypatch, big, big.index("def f1999") + 5)
    assert parsed == [len("def f1999(a, b):\n    return a + b * 1999\n")]


def test_a_text_that_does_not_parse_has_no_outline() -> None:
    assert outline_of("def f(:\n") is None


LONG_CLASS = """\
import functools


@functools.total_ordering
class Big(
    object,
):
    '''A class outlined member by member.'''

    size: int = 3

    # a comment between members
    @property
    def doubled(self):
        return self.size * 2

    def grow(self, by):
        total = self.size + by
        self.size = total; return total
"""


@pytest.mark.parametrize("long_classes", [False, True], ids=["whole", "member by member"])
def test_outline_offers_are_the_module_offers_at_every_place(
    monkeypatch: pytest.MonkeyPatch, long_classes: bool
) -> None:
    """With every class counted as long, a class is parsed member by member: "move
    method" offers (to the class of an attribute of ``self`` assigned in any method) are
    the same although one member is parsed."""
    if long_classes:
        monkeypatch.setattr(outline_module, "MEMBER_OUTLINE_CHARS", 0)
    for source in (LONG_CLASS, SOURCE) if long_classes else (SOURCE, DECORATED):
        outline = outline_from_wire(outline_to_wire(outline_of(source)))
        assert outline is not None and bool(outline.classes) == long_classes
        tree = ast.parse(source)
        for offset in range(len(source) + 1):
            for end in (None, offset + 25):
                end = None if end is None else min(end, len(source))
                expected = offers_at(source, offset, end, tree)
                assert offers_in_outline(source, outline, offset, end) == expected, (offset, end)


def test_in_a_long_class_only_the_members_at_the_cursor_are_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    header = "class Big:\n"
    big = header + "".join(
        f"    def f{i}(self, b):\n        return b * {i}\n\n" for i in range(2_000)
    )
    parsed = parsed_at(monkeypatch, big, big.index("def f1999") + 5)
    assert parsed == [len(header + "    def f1999(self, b):\n        return b * 1999\n")]


def test_offers_without_an_outline_are_the_module_offers_at_every_place() -> None:
    """Before a document's first outline, the statements around the cursor are guessed
    from the lines alone (decorators, ``a = 1; b = 2``, comments between statements)."""
    for source in (DECORATED, LONG_CLASS):
        tree = ast.parse(source)
        facts = module_facts(tree)
        for offset in range(len(source) + 1):
            for end in (None, offset + 25):
                end = None if end is None else min(end, len(source))
                expected = offers_at(source, offset, end, tree)
                found = offers_without_outline(source, offset, end, known=facts)
                assert found == expected, (offset, end)


def test_a_guess_that_does_not_parse_offers_nothing() -> None:
    text = 'x = """\nnot python at column 0\n"""\n'
    assert offers_without_outline(text, text.index("not") + 2) == []


def _json_values(data: object) -> int:
    if isinstance(data, dict):
        return 1 + sum(_json_values(value) for value in data.values())
    if isinstance(data, list | tuple):
        return 1 + sum(_json_values(value) for value in data)
    return 1


def test_a_long_modules_outline_travels_in_as_many_json_values_as_a_short_ones() -> None:
    """The server decodes the outline worker's reply holding the interpreter lock: one JSON
    value per statement and per name held it for tens of milliseconds on a long module
    (issue 15). Its offsets and names travel packed, and come back the same."""

    def module(statements: int) -> str:
        return "class C:\n    pass\n\n\n" + "".join(f"v{i} = f({i})\n" for i in range(statements))

    short, long = outline_of(module(30)), outline_of(module(3000))
    assert short is not None and long is not None
    assert _json_values(outline_to_wire(long)) == _json_values(outline_to_wire(short))
    assert outline_from_wire(json.loads(json.dumps(outline_to_wire(long)))) == long
