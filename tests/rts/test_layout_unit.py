"""The layout checksum (``rts.layout_unit``): line breaks, comments, spaces and operators
change it; names and literals, which their own units tell, do not."""

from __future__ import annotations

import pytest

from lsp_server.rts.layout_unit import layout_checksum

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
