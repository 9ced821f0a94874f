"""Edits as small replacements in the old text, and which of them are uncertain.

A ``FileEdit`` holds whole texts. To ask the user about single occurrences (LSP change
annotations, the CLI's ``--yes``) the edit is cut into replacements of tokens: lines are
matched first, then the tokens of lines that changed, so renaming ``f`` in ``a.f + f``
yields two replacements of one word each and each can be confirmed or left out.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass

from lsp_server.project.text import line_starts, offset_of
from lsp_server.refactor.model import FileEdit, RefactoringResult, Uncertain

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]", re.UNICODE)


@dataclass(frozen=True)
class Replacement:
    """Replace ``old[start:end]`` by ``text``; ``uncertain`` when it needs confirmation."""

    start: int
    end: int
    text: str
    uncertain: Uncertain | None = None


def _token_replacements(old_line: str, new_line: str, base: int) -> list[Replacement]:
    old_tokens = _TOKEN.findall(old_line)
    new_tokens = _TOKEN.findall(new_line)
    starts = [base]
    for token in old_tokens:
        starts.append(starts[-1] + len(token))
    out: list[Replacement] = []
    matcher = difflib.SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            out.append(Replacement(starts[i1], starts[i2], "".join(new_tokens[j1:j2])))
    return out


def replacements(old: str, new: str) -> list[Replacement]:
    """Replacements (in order, not overlapping) turning ``old`` into ``new``."""
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    starts = [0]
    for line in old_lines:
        starts.append(starts[-1] + len(line))
    out: list[Replacement] = []
    if len(old_lines) == len(new_lines):
        # A rename keeps the lines: each is compared with its own, in linear time (a
        # line diff of a long module costs a rename more than rope's own search).
        for index, (before, after) in enumerate(zip(old_lines, new_lines, strict=True)):
            if before != after:
                out.extend(_token_replacements(before, after, starts[index]))
        return out
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                out.extend(
                    _token_replacements(old_lines[i1 + k], new_lines[j1 + k], starts[i1 + k])
                )
        else:
            out.append(Replacement(starts[i1], starts[i2], "".join(new_lines[j1:j2])))
    return out


def apply_replacements(old: str, done: list[Replacement]) -> str:
    """``old`` with ``done`` applied (non-overlapping; any order)."""
    parts: list[str] = []
    position = 0
    for item in sorted(done, key=lambda r: (r.start, r.end)):
        parts.append(old[position : item.start])
        parts.append(item.text)
        position = item.end
    parts.append(old[position:])
    return "".join(parts)


def uncertain_span(text: str, path: str, start: int, end: int, reason: str) -> Uncertain:
    """An ``Uncertain`` for ``text[start:end]`` (line and column counted in ``text``)."""
    line = text.count("\n", 0, start)
    column = start - (text.rfind("\n", 0, start) + 1)
    return Uncertain(path, line, column, end - start, reason)


def marked_replacements(edit: FileEdit, uncertain: list[Uncertain]) -> list[Replacement]:
    """The replacements of ``edit``, each carrying the ``Uncertain`` it overlaps, if any."""
    spans = [u for u in uncertain if u.path == edit.path]
    found = replacements(edit.old_text, edit.new_text)
    if not spans:
        return found
    table = line_starts(edit.old_text)
    placed = []
    for span in spans:
        start = offset_of(table, span.line + 1, span.column)
        placed.append((start, start + span.length, span))
    out: list[Replacement] = []
    for item in found:
        hit = next(
            (
                span
                for start, end, span in placed
                if item.start <= start < max(item.end, item.start + 1) or start <= item.start < end
            ),
            None,
        )
        out.append(Replacement(item.start, item.end, item.text, hit))
    return out


def without_uncertain(result: RefactoringResult) -> RefactoringResult:
    """``result`` with its uncertain changes left out (for clients that cannot ask).

    The Provenance stays the one of the whole edit, which is inexact (``engine``): REKS
    treats the changed units as hand edits and runs their tests.
    """
    if not result.uncertain:
        return result
    edits = []
    files_after = dict(result.files_after)
    for edit in result.edits:
        if isinstance(edit, FileEdit) and any(u.path == edit.path for u in result.uncertain):
            kept = [r for r in marked_replacements(edit, result.uncertain) if r.uncertain is None]
            text = apply_replacements(edit.old_text, kept)
            # files_after is keyed by root-relative path: the longest suffix is this file
            matching = [rel for rel in files_after if edit.path.endswith("/" + rel)]
            if matching:
                files_after[max(matching, key=len)] = text
            if text == edit.old_text:
                continue
            edit = FileEdit(edit.path, edit.old_text, text)
        edits.append(edit)
    return RefactoringResult(
        edits, lambda: result.provenance, result.skipped_files, files_after, uncertain=None
    )


def describe_uncertain(uncertain: list[Uncertain], root: str) -> list[str]:
    """One line per uncertain change: ``path:line:column: reason`` (1-based, root-relative)."""
    out = []
    for item in uncertain:
        rel = os.path.relpath(item.path, root) if item.path.startswith(root) else item.path
        out.append(f"{rel}:{item.line + 1}:{item.column + 1}: {item.reason}")
    return out
