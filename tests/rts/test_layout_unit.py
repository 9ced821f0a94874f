"""The layout checksums (``rts.layout_unit``): line breaks, comments, spaces and operators
change them; names and literals, which their own units tell, do not. A function's place
(its ``LINES`` unit) changes with its first line and its own lines only."""

from __future__ import annotations

import pytest

from lsp_server.rts.layout_unit import layout_checksum
from lsp_server.rts.unit_names import LINES
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
