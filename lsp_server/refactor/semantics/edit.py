"""What the semantic checks need around rope's result: the text it gives the file the
request is about, a way to hand back a mended text, and offsets of syntax nodes."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from rope.base.change import ChangeContents, ChangeSet

from lsp_server.project.text import line_starts, offset_of, parse_python
from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.model import RefactoringError


@dataclass
class Source:
    """A text as rope sees it (universal newlines), its tree and its line table."""

    text: str
    tree: ast.Module
    starts: list[int]

    @classmethod
    def parse(cls, text: str) -> Source | None:
        try:
            tree = parse_python(text)
        except (SyntaxError, ValueError):
            return None
        return cls(text, tree, line_starts(text))

    def _offset(self, line: int, byte_column: int) -> int:
        # ast counts columns in UTF-8 bytes; offsets here count characters.
        start = self.starts[line - 1]
        if self.text.isascii():
            return offset_of(self.starts, line, byte_column)
        head = self.text[start : start + byte_column].encode()[:byte_column]
        return start + len(head.decode(errors="ignore"))

    def start(self, node: ast.AST) -> int:
        return self._offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        return self._offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def segment(self, node: ast.AST) -> str:
        return self.text[self.start(node) : self.end(node)]


def old_source(ctx: Context) -> Source | None:
    """The requested file before the refactoring, with rope's offsets (``ctx.offset``)."""
    return Source.parse(ctx.text.replace("\r\n", "\n"))


def _contents(changes: ChangeSet | None, path: str) -> list[ChangeContents]:
    found: list[ChangeContents] = []
    todo = [changes] if changes is not None else []
    while todo:
        change = todo.pop()
        if isinstance(change, ChangeSet):
            todo.extend(reversed(change.changes))
        elif isinstance(change, ChangeContents) and change.resource.path == path:
            found.append(change)
    return found


def new_text(ctx: Context, planned: Planned) -> str | None:
    """What rope makes of the requested file (None: rope leaves it alone)."""
    found = _contents(planned.changes, ctx.resource.path)
    return found[-1].new_contents if found else None


def with_new_text(ctx: Context, planned: Planned, text: str) -> Planned:
    """``planned`` with the requested file's new text replaced by ``text`` (a mended edit)."""
    found = _contents(planned.changes, ctx.resource.path)
    if len(found) != 1 or planned.changes is None:
        raise RefactoringError("cannot mend rope's edit: it changes the file more than once")
    mended = ChangeSet(planned.changes.description)
    for change in _flatten(planned.changes):
        if change is found[0]:
            change = ChangeContents(change.resource, text)
        mended.add_change(change)
    return replace(planned, changes=mended)


def _flatten(changes: ChangeSet) -> list:
    out = []
    for change in changes.changes:
        out.extend(_flatten(change) if isinstance(change, ChangeSet) else [change])
    return out


def place(ctx: Context, line: int) -> str:
    """``file:line`` for messages."""
    return f"{ctx.rel}:{line}"


def parse_failure_message(ctx: Context, exc: SyntaxError) -> str:
    """Whose failure a SyntaxError raised inside rope is: the user's file or rope's parser.

    rope parses with its own code and on snippets it cuts out (``<string>``); when the
    user's file is valid Python the failure is rope's limitation and must read as such.
    """
    detail = f"{exc.msg} (line {exc.lineno})" if exc.msg else str(exc)
    if Source.parse(ctx.text.replace("\r\n", "\n")) is None:
        return f"{ctx.rel} cannot be parsed: {detail}"
    return (
        f"rope cannot handle this code: its parser fails with {detail} on a part of "
        f"{ctx.rel} although Python parses the file (a limitation of rope, not an error in "
        "your file)"
    )
