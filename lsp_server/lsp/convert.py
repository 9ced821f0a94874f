"""Engine results (plain edits) -> LSP ``WorkspaceEdit``; LSP positions <-> text offsets.

Edits are sent as ``documentChanges`` (versioned text edits, ``RenameFile``, ``CreateFile``)
when the client can apply them, as ``changes`` otherwise. Uncertain changes (a string that
may name the renamed attribute) become ``AnnotatedTextEdit``s whose ``ChangeAnnotation``
needs confirmation (LSP 3.16); a client without ``changeAnnotationSupport`` never gets them
(the feature leaves them out and says so). Text edits are line-based diffs
of the old and new text, so an edit touches only the lines that changed and the cursor and
undo history of the client stay useful.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types

from lsp_server.project.text import line_start
from lsp_server.refactor.model import (
    FileCreate,
    FileEdit,
    FileRename,
    RefactoringError,
    Uncertain,
)
from lsp_server.refactor.spans import marked_replacements

UTF16 = "utf-16"


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme not in ("", "file"):
        raise RefactoringError(f"only file: URIs are supported, not {uri}")
    return unquote(parsed.path)


def path_to_uri(path: str) -> str:
    return Path(path).as_uri()


def _units(text: str, encoding: str) -> int:
    if encoding in ("utf-32", types.PositionEncodingKind.Utf32) or text.isascii():
        return len(text)
    if encoding in ("utf-8", types.PositionEncodingKind.Utf8):
        return len(text.encode("utf-8"))
    return len(text.encode("utf-16-le")) // 2


def offset_at(text: str, position: types.Position, encoding: str = UTF16) -> int:
    """Character offset of an LSP position (clamped to the text, as LSP asks)."""
    start = line_start(text, position.line)
    if start is None:
        return len(text)
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    line = text[start:end]
    if line.isascii() or encoding in ("utf-32", types.PositionEncodingKind.Utf32):
        return start + min(position.character, len(line))
    units = 0
    for index, char in enumerate(line):
        if units >= position.character:
            return start + index
        units += _units(char, encoding)
    return end


def offset_in_text(text: str, position: types.Position, encoding: str = UTF16) -> int:
    """``offset_at`` for a position that must name a place in the text (a rename's):
    a line past the end is an error, not the end of the file."""
    if line_start(text, position.line) is None:
        lines = text.count("\n") + 1
        raise RefactoringError(
            f"line {position.line + 1} is past the end of the file ({lines} lines)"
        )
    return offset_at(text, position, encoding)


def position_at(text: str, offset: int, encoding: str = UTF16) -> types.Position:
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return types.Position(line=line, character=_units(text[start:offset], encoding))


def _split_lines(text: str) -> list[str]:
    """Lines of ``text`` with their ends, split at ``\n`` only (as ``position_at`` counts)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def text_edits(old: str, new: str, encoding: str = UTF16) -> list[types.TextEdit]:
    """Line-based minimal edits turning ``old`` into ``new``, in time linear in the text
    when the line count stays (a rename: every changed line is compared with its own),
    with a line diff of the changed middle otherwise."""
    old_lines = _split_lines(old)
    new_lines = _split_lines(new)
    # Refactorings change few lines of long files: match the common head and tail first,
    # and diff only what lies between.
    head = 0
    limit = min(len(old_lines), len(new_lines))
    while head < limit and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while (
        tail < limit - head
        and old_lines[len(old_lines) - 1 - tail] == new_lines[len(new_lines) - 1 - tail]
    ):
        tail += 1
    old_mid = old_lines[head : len(old_lines) - tail]
    new_mid = new_lines[head : len(new_lines) - tail]
    if len(old_mid) == len(new_mid):
        blocks = _changed_blocks(old_mid, new_mid)
    else:
        matcher = difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False)
        blocks = [
            (i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
        ]
    end_of_text = position_at(old, len(old), encoding)

    def line_start(index: int) -> types.Position:
        # Past the last line of a text without a final newline: the end of the text.
        line = head + index
        return types.Position(line, 0) if line < len(old_lines) else end_of_text

    return [
        types.TextEdit(
            range=types.Range(line_start(i1), line_start(i2)),
            new_text="".join(new_mid[j1:j2]),
        )
        for i1, i2, j1, j2 in blocks
    ]


def _changed_blocks(old: list[str], new: list[str]) -> list[tuple[int, int, int, int]]:
    """Runs of differing lines of two lists of the same length, as diff opcodes."""
    blocks: list[tuple[int, int, int, int]] = []
    start = -1
    for index, (a, b) in enumerate(zip(old, new, strict=True)):
        if a != b:
            if start < 0:
                start = index
        elif start >= 0:
            blocks.append((start, index, start, index))
            start = -1
    if start >= 0:
        blocks.append((start, len(old), start, len(old)))
    return blocks


VersionOf = Callable[[str], "int | None"]


def supports_document_changes(caps: types.ClientCapabilities | None) -> bool:
    """documentChanges, or resource operations (which exist only inside documentChanges:
    Neovim announces the latter without the former and applies both)."""
    edit = caps.workspace.workspace_edit if caps and caps.workspace else None
    if edit is None:
        return False
    return bool(edit.document_changes) or bool(edit.resource_operations)


def supports_resource_operations(caps: types.ClientCapabilities | None) -> set[str]:
    edit = caps.workspace.workspace_edit if caps and caps.workspace else None
    if edit is None or not edit.resource_operations:
        return set()
    return {str(getattr(op, "value", op)) for op in edit.resource_operations}


def supports_change_annotations(caps: types.ClientCapabilities | None) -> bool:
    """Whether the client can show change annotations (and so ask for confirmation)."""
    edit = caps.workspace.workspace_edit if caps and caps.workspace else None
    return (
        edit is not None
        and edit.change_annotation_support is not None
        and supports_document_changes(caps)
    )


ANNOTATION_PREFIX = "reks.uncertain."


def annotated_text_edits(
    edit: FileEdit, uncertain: list[Uncertain], encoding: str, ids: dict[str, str]
) -> list[types.TextEdit | types.AnnotatedTextEdit]:
    """Token-sized edits of ``edit``; those overlapping an uncertain change carry the
    annotation of its reason (``ids``: reason -> annotation id, filled here)."""
    out: list[types.TextEdit | types.AnnotatedTextEdit] = []
    for item in marked_replacements(edit, uncertain):
        where = types.Range(
            position_at(edit.old_text, item.start, encoding),
            position_at(edit.old_text, item.end, encoding),
        )
        if item.uncertain is None:
            out.append(types.TextEdit(range=where, new_text=item.text))
            continue
        ident = ids.setdefault(item.uncertain.reason, f"{ANNOTATION_PREFIX}{len(ids)}")
        out.append(types.AnnotatedTextEdit(annotation_id=ident, range=where, new_text=item.text))
    return out


def _annotations(ids: dict[str, str]) -> dict[str, types.ChangeAnnotation]:
    return {
        ident: types.ChangeAnnotation(
            label=f"reks: uncertain, confirm: {reason}",
            needs_confirmation=True,
            description=reason,
        )
        for reason, ident in ids.items()
    }


DocumentChange = types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile


def workspace_edit(
    edits: list[FileEdit | FileRename | FileCreate],
    caps: types.ClientCapabilities | None,
    version_of: VersionOf,
    encoding: str = UTF16,
    include_renames: bool = True,
    uncertain: list[Uncertain] | None = None,
) -> types.WorkspaceEdit:
    """Convert engine edits for a client with capabilities ``caps``.

    ``version_of(uri)`` gives the version of an open document (None when not open).
    ``include_renames=False`` leaves file renames out (``workspace/willRenameFiles``: the
    client renames the file itself). ``uncertain`` changes are annotated as needing
    confirmation; the client must support change annotations (the caller checks).
    """
    if uncertain and not supports_change_annotations(caps):
        raise RefactoringError("this editor cannot confirm uncertain changes; nothing changed")
    if supports_document_changes(caps):
        ops = supports_resource_operations(caps)
        changes: list[DocumentChange] = []
        ids: dict[str, str] = {}
        for edit in edits:
            found = _document_changes(edit, ops, version_of, encoding, include_renames)
            if uncertain and isinstance(edit, FileEdit) and found:
                assert isinstance(found[0], types.TextDocumentEdit)
                found[0].edits = annotated_text_edits(edit, uncertain, encoding, ids)
            changes.extend(found)
        if ids:
            return types.WorkspaceEdit(
                document_changes=changes, change_annotations=_annotations(ids)
            )
        return types.WorkspaceEdit(document_changes=changes)
    plain: dict[str, list[types.TextEdit]] = {}
    for edit in edits:
        if isinstance(edit, FileEdit):
            plain.setdefault(path_to_uri(edit.path), []).extend(
                text_edits(edit.old_text, edit.new_text, encoding)
            )
        elif include_renames:
            raise RefactoringError("this editor cannot rename or create files; nothing changed")
    return types.WorkspaceEdit(changes=plain)


def _document_changes(
    edit: FileEdit | FileRename | FileCreate,
    ops: set[str],
    version_of: VersionOf,
    encoding: str,
    include_renames: bool,
) -> list[DocumentChange]:
    """One engine edit as ``documentChanges`` entries (none for what the client does itself)."""
    if isinstance(edit, FileEdit):
        uri = path_to_uri(edit.path)
        ident = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version_of(uri))
        return [
            types.TextDocumentEdit(
                text_document=ident, edits=list(text_edits(edit.old_text, edit.new_text, encoding))
            )
        ]
    if isinstance(edit, FileRename):
        if not include_renames:
            return []
        if "rename" not in ops:
            raise RefactoringError("this editor cannot rename files; nothing changed")
        return [
            types.RenameFile(old_uri=path_to_uri(edit.old_path), new_uri=path_to_uri(edit.new_path))
        ]
    if edit.is_folder:
        return []  # a folder appears with the first file created in it
    if "create" not in ops:
        raise RefactoringError("this editor cannot create files; nothing changed")
    uri = path_to_uri(edit.path)
    out: list[DocumentChange] = [types.CreateFile(uri=uri)]
    if edit.text:
        ident = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None)
        insert = types.TextEdit(
            range=types.Range(types.Position(0, 0), types.Position(0, 0)), new_text=edit.text
        )
        out.append(types.TextDocumentEdit(text_document=ident, edits=[insert]))
    return out
