"""Punctuation a formatter adds or removes is layout: isort joining a parenthesized
from-import onto one line, black's magic trailing comma exploding a call or a list. Such a
commit selects no test (diskcache's "Run isort" reran the 64 tests of the reformatted
file). A comma that makes a one-element tuple is no layout: dropping it selects."""

from __future__ import annotations

import pytest

from lsp_server.rts.tokens import normalized_tokens

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "shapes.py",
        """
        def area(width, height):
            return width * height


        SIDES = [
            3,
            4,
        ]
        PAIR = (1,)
        """,
    )
    write(
        pytester,
        "test_shapes_case.py",
        """
        from shapes import (
            PAIR,
            SIDES,
            area,
        )


        def test_area():
            assert area(
                2,
                3,
            ) == 6


        def test_sides():
            assert SIDES == [3, 4]


        def test_pair():
            assert len(PAIR) == 1
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_area", "test_sides", "test_pair"}
    return pytester


def test_a_reformatted_from_import_selects_no_test(project: pytest.Pytester) -> None:
    edit(
        project,
        "test_shapes_case.py",
        "(\n    PAIR,\n    SIDES,\n    area,\n)",
        "PAIR, SIDES, area",
    )
    assert run(project) == set()


def test_magic_trailing_commas_select_no_test(project: pytest.Pytester) -> None:
    edit(project, "test_shapes_case.py", "area(\n        2,\n        3,\n    )", "area(2, 3)")
    edit(project, "shapes.py", "[\n    3,\n    4,\n]", "[3, 4]")
    assert run(project) == set()


def test_the_comma_of_a_one_element_tuple_selects(project: pytest.Pytester) -> None:
    edit(project, "shapes.py", "PAIR = (1,)", "PAIR = (1)")
    assert run(project) == {"test_pair"}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("x = (a, b,)\n", "x = (a, b)\n"),
        ("f(a,)\n", "f(a)\n"),
        ("f(a, *b,)\n", "f(a, *b)\n"),
        ("def f(a, b,): pass\n", "def f(a, b): pass\n"),
        ("class C(A,): pass\n", "class C(A): pass\n"),
        ("x = [a,]\n", "x = [a]\n"),
        ("x = {a,}\n", "x = {a}\n"),
        ("x = {a: lambda b, c: 0,}\n", "x = {a: lambda b, c: 0}\n"),
        ("x = y[a, b,]\n", "x = y[a, b]\n"),
        ("x = f(a)(b,)\n", "x = f(a)(b)\n"),
        ("from m import (a as b,)\n", "from m import a as b\n"),
        ("if a in [b,]: pass\n", "if a in [b]: pass\n"),
    ],
)
def test_layout_punctuation_is_dropped(before: str, after: str) -> None:
    assert _texts(before) == _texts(after)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("x = (a,)\n", "x = (a)\n"),
        ("x = y[a,]\n", "x = y[a]\n"),
        ("x = (lambda a, b: 0,)\n", "x = (lambda a, b: 0)\n"),
        ("x = (lambda a=lambda: 0, b: 1,)\n", "x = (lambda a=lambda: 0, b: 1)\n"),
        ("if a in (b,): pass\n", "if a in (b): pass\n"),
        ("return_ = match[a,]\n", "return_ = match[a]\n"),
        ("x = 'ab'[a,]\n", "x = 'ab'[a]\n"),
        ('x = f"{a,}"\n', 'x = f"{a}"\n'),
        ('x = f"{a, b,=}"\n', 'x = f"{a, b=}"\n'),
        ("for a in b,: pass\n", "for a in b: pass\n"),
    ],
)
def test_meaningful_punctuation_stays(before: str, after: str) -> None:
    assert _texts(before) != _texts(after)


def _texts(source: str) -> list[str]:
    return [text for _, text in normalized_tokens(source)]
