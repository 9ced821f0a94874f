"""Replacements between a file's text before and after a refactoring (the rename
completion and the uncertain-change marks read them)."""

from __future__ import annotations

from lsp_server.refactor.spans import Replacement, apply_replacements, replacements


def test_a_rename_gives_one_replacement_per_renamed_word() -> None:
    old = "def dedent(x):\n    return x\n\n\nprint(dedent(1), 'dedent')\n" * 3
    new = old.replace("dedent(", "trim(")
    found = replacements(old, new)
    assert apply_replacements(old, found) == new
    assert len(found) == 6
    assert all(old[r.start : r.end] == "dedent" and r.text == "trim" for r in found)


def test_lines_added_or_removed_are_replaced_as_lines() -> None:
    old = "a = 1\nb = 2\nc = 3\n"
    new = "a = 1\nc = 3\n"
    found = replacements(old, new)
    assert apply_replacements(old, found) == new
    assert found == [Replacement(6, 12, "")]
