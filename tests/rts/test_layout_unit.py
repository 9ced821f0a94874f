"""The layout checksums (``rts.layout_unit``): line breaks, comments, spaces and operators
change them; names and literals, which their own units tell, do not. A function's place
(its ``LINES`` unit) changes with its first line and its own lines only. Their twins
without comments' text (``PLACES``, ``PLACED``) change with lines and columns, not with
the text of a comment or trailing spaces."""

from __future__ import annotations

import pytest

from lsp_server.rts.layout_unit import layout_checksum
from lsp_server.rts.unit_names import LAYOUT, LINES, PLACED, PLACES
from lsp_server.rts.units import source_units

SOURCE = 'import os\n\n\ndef f(x):\n    """Doc."""\n    return x + 1  # one\n'


@pytest.mark.parametrize(
    ("old", "new"),
    [("x + 1", "y + 2"), ("import os", "import sys"), ('"""Doc."""', '"""Other."""')],
)
def test_names_and_literals_leave_the_layout(old: str, new: str) -> None:
    assert layout_checksum(SOURCE.replace(old, new)) == layout_checksum(SOURCE)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("# one", "# two"),
        ("x + 1", "x+1"),
        ("\n\ndef", "\n\n\ndef"),
        ('"""Doc."""', '"""Doc.\n\n    More.\n    """'),
        ("x + 1", "(\n        x + 1\n    )"),
    ],
)
def test_comments_spaces_and_line_breaks_change_the_layout(old: str, new: str) -> None:
    assert layout_checksum(SOURCE.replace(old, new)) != layout_checksum(SOURCE)


TWO = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"


def _places(source: str) -> dict[str, str]:
    return {k: v for k, v in source_units("m.py", source).checksums.items() if k.endswith(LINES)}


def test_a_line_added_between_two_functions_moves_the_lower_only() -> None:
    before, after = _places(TWO), _places(TWO.replace("\n\ndef g", "\n\n# g\ndef g"))
    assert after["f" + LINES] == before["f" + LINES]
    assert after["g" + LINES] != before["g" + LINES]


def test_a_comment_inside_a_function_changes_its_place_and_those_below() -> None:
    before, after = _places(TWO), _places(TWO.replace("return 1", "return 1  # one"))
    assert after["f" + LINES] != before["f" + LINES]
    assert after["g" + LINES] == before["g" + LINES]  # on the same line: g stays
    moved = _places(TWO.replace("return 1", "return 1\n    # one"))
    assert moved["f" + LINES] != before["f" + LINES]
    assert moved["g" + LINES] != before["g" + LINES]


def test_a_comment_after_the_last_statement_belongs_to_the_function_it_is_indented_in() -> None:
    # ``inspect.getsource(f)`` shows the indented comment, not the one at the margin.
    before = _places(TWO)
    inner = _places(TWO.replace("return 1\n", "return 1\n\n    # more\n"))
    assert inner["f" + LINES] != before["f" + LINES]
    outer = _places(TWO.replace("\n\n\ndef g", "\n\n# g\n\ndef g"))
    assert outer["f" + LINES] == before["f" + LINES]


def _twins(source: str) -> dict[str, str]:
    """The places units without comments' text (``PLACES``, ``PLACED``) of ``source``."""
    units = source_units("m.py", source).checksums
    return {k: v for k, v in units.items() if k == PLACES or k.endswith(PLACED)}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("# one", "# two"),
        ("  # one", ""),
        ("def f(x):", "def f(x):  # noqa: C901"),
        ("\n\ndef", "\n# a note\ndef"),
        ("return x + 1", "return x + 1   "),
    ],
)
def test_comments_text_leaves_the_places(old: str, new: str) -> None:
    # The same edits change the layout (with the comments) all the same.
    assert _twins(SOURCE.replace(old, new)) == _twins(SOURCE)
    assert _layouts(SOURCE.replace(old, new)) != _layouts(SOURCE)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("x + 1", "x+1"),
        ("\n\ndef", "\n\n\ndef"),
        ("return x + 1  # one", "# one\n    return x + 1"),
        ("import os\n", "# -*- coding: latin-1 -*-\nimport os\n"),
        ('"""Doc."""', '"""Doc.\n\n    More.\n    """'),
    ],
)
def test_lines_and_columns_change_the_places(old: str, new: str) -> None:
    assert _twins(SOURCE.replace(old, new)) != _twins(SOURCE)


def test_an_encoding_comment_stays_in_the_places() -> None:
    # It changes how the file decodes, so what its strings hold.
    source = "# -*- coding: utf-8 -*-\n" + SOURCE
    assert _twins(source.replace("utf-8", "latin-1")) != _twins(source)


def _layouts(source: str) -> dict[str, str]:
    units = source_units("m.py", source).checksums
    return {k: v for k, v in units.items() if k == LAYOUT or k.endswith(LINES)}
