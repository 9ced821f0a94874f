"""Engine edits -> LSP WorkspaceEdit, for the capabilities real clients announce."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from lsp_server.lsp.convert import offset_at, position_at, text_edits, workspace_edit
from lsp_server.refactor.model import FileEdit, FileRename, RefactoringError


def apply(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    spans = sorted(
        (
            (
                offset_at(text, e.range.start, encoding),
                offset_at(text, e.range.end, encoding),
                e.new_text,
            )
            for e in edits
        ),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_text_edits_round_trip_with_wide_characters(encoding: str):
    old = "s = 'é😀'\ndef f(a):\n    return a  # ü\nx = f(1)"
    new = "s = 'é😀'\ndef g(a):\n    return a  # ü\nx = g(1)"
    edits = text_edits(old, new, encoding)
    assert len(edits) == 2  # only the changed lines
    assert apply(old, edits, encoding) == new


def test_positions_count_utf16_code_units():
    text = "a😀b\n"
    assert position_at(text, 2, "utf-16") == types.Position(0, 3)
    assert position_at(text, 2, "utf-32") == types.Position(0, 2)
    assert offset_at(text, types.Position(0, 3), "utf-16") == 2


def test_document_changes_with_versions_and_renames_for_vscode():
    edits = [FileEdit("/p/a.py", "x = 1\n", "y = 1\n"), FileRename("/p/a.py", "/p/b.py")]
    result = workspace_edit(edits, client_capabilities("visual-studio-code"), lambda uri: 7)
    assert result.changes is None and result.document_changes is not None
    doc, rename = result.document_changes
    assert isinstance(doc, types.TextDocumentEdit) and doc.text_document.version == 7
    assert isinstance(rename, types.RenameFile) and rename.new_uri == "file:///p/b.py"


def test_neovim_resource_operations_mean_document_changes():
    edits = [FileEdit("/p/a.py", "x = 1\n", "y = 1\n"), FileRename("/p/a.py", "/p/b.py")]
    result = workspace_edit(edits, client_capabilities("neovim@v0.11.0"), lambda uri: None)
    assert result.document_changes is not None and len(result.document_changes) == 2


def test_plain_changes_without_document_changes_and_no_silent_file_renames():
    caps = types.ClientCapabilities()
    result = workspace_edit([FileEdit("/p/a.py", "x = 1\n", "y = 1\n")], caps, lambda uri: None)
    assert result.document_changes is None and result.changes is not None
    assert list(result.changes) == ["file:///p/a.py"]
    with pytest.raises(RefactoringError, match="cannot rename"):
        workspace_edit([FileRename("/p/a.py", "/p/b.py")], caps, lambda uri: None)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\nb\nc\n", "a\nb\nc\n"),
        ("", "x = 1\n"),
        ("a\nb\n", "a\nb\nc\n"),
        ("a\nb\n", "z\na\nb\n"),
        ("a\nb\nc", "a\nB\nc"),
        ("a\na\na\n", "a\na\n"),
        ("x\n" * 50 + "y\n" + "x\n" * 50, "x\n" * 50 + "z\nz\n" + "x\n" * 50),
    ],
)
def test_text_edits_edge_cases(old: str, new: str):
    edits = text_edits(old, new)
    assert apply(old, edits, "utf-16") == new
    assert not edits if old == new else edits


def test_uncertain_changes_are_annotated_and_need_confirmation() -> None:
    from lsp_server.refactor.model import Uncertain

    old = 'x.run()\nrun = getattr(x, "run")  # run\n'
    new = 'x.go()\ngo = getattr(x, "go")  # run\n'
    uncertain = [Uncertain("/p/a.py", 1, 18, 3, "a string")]
    caps = client_capabilities("visual-studio-code")
    edit = workspace_edit([FileEdit("/p/a.py", old, new)], caps, lambda uri: None, "utf-16",
                          uncertain=uncertain)  # fmt: skip
    (document,) = edit.document_changes or []
    assert isinstance(document, types.TextDocumentEdit)
    annotated = [e for e in document.edits if isinstance(e, types.AnnotatedTextEdit)]
    (only,) = annotated
    assert (only.range.start.line, only.range.start.character, only.new_text) == (1, 18, "go")
    assert edit.change_annotations is not None
    assert edit.change_annotations[only.annotation_id].needs_confirmation is True
    assert apply(old, list(document.edits), "utf-16") == new
    with pytest.raises(RefactoringError, match="cannot confirm"):
        workspace_edit([FileEdit("/p/a.py", old, new)], client_capabilities("neovim@v0.11.0"),
                       lambda uri: None, uncertain=uncertain)  # fmt: skip


def test_text_edits_round_trip_on_random_line_changes() -> None:
    """Lines kept, changed, inserted and removed; form feeds and lone carriage returns
    inside lines; with and without a final newline."""
    import random

    rnd = random.Random(6)
    for _ in range(2000):
        lines = [rnd.choice(["a", "b", "é", "", "x\r", "\x0cq"]) for _ in range(rnd.randint(0, 8))]
        old = "\n".join(lines) + rnd.choice(["", "\n"])
        changed = [x if rnd.random() < 0.6 else rnd.choice(["a", "z", "ü", ""]) for x in lines]
        if rnd.random() < 0.3:
            changed.insert(rnd.randint(0, len(changed)), "inserted")
        if changed and rnd.random() < 0.3:
            del changed[rnd.randrange(len(changed))]
        new = "\n".join(changed) + rnd.choice(["", "\n"])
        assert apply(old, text_edits(old, new), "utf-16") == new, (old, new)


@pytest.mark.timeout(60)
def test_a_rename_of_thousands_of_uses_converts_in_one_pass() -> None:
    """Issue 15: 2,000 changed lines of a 20,000-line file (the conversion was quadratic:
    minutes; a linear one takes well under a second)."""
    old = "".join(f"v{i} = target({i})\n" + "w = 1\n" * 9 for i in range(2000))
    new = old.replace("target", "tgt")
    edits = text_edits(old, new)
    assert len(edits) == 2000
    lines = old.splitlines(keepends=True)
    for edit in edits:  # whole-line edits: applied by line, in linear time
        assert edit.range.start.character == edit.range.end.character == 0
        first, last = edit.range.start.line, edit.range.end.line
        lines[first:last] = [edit.new_text] + [""] * (last - first - 1)
    assert "".join(lines) == new


@pytest.mark.parametrize("text", ["", "a", "a\n", "a\nbb\n\nccc", "\n\n", "x\r\ny\n", "é\n😀x\n"])
def test_offsets_of_every_line_and_past_the_end(text: str) -> None:
    starts = [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]
    for line, start in enumerate(starts):
        assert offset_at(text, types.Position(line, 0)) == start
    assert offset_at(text, types.Position(len(starts), 0)) == len(text)
    assert offset_at(text, types.Position(len(starts) + 5, 3)) == len(text)
