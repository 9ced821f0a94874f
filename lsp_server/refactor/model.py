"""Plain data the refactoring engine returns: edits, skipped files, errors.

Nothing here knows about LSP or rope; ``lsp_server.lsp.convert`` turns these into LSP
``WorkspaceEdit`` objects and ``lsp_server.refactor.apply`` writes them to disk.
Paths are absolute POSIX strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lsp_server.rts.provenance import Provenance


@dataclass(frozen=True)
class FileEdit:
    """Replace the whole text of ``path``: ``old_text`` is what the engine read (editor
    buffer or disk), ``new_text`` what it should become."""

    path: str
    old_text: str
    new_text: str


@dataclass(frozen=True)
class FileRename:
    """Rename a file or a folder (a package). Applied after the edits of ``old_path``."""

    old_path: str
    new_path: str


@dataclass(frozen=True)
class FileCreate:
    """Create a file (or a folder when ``is_folder``) with ``text``."""

    path: str
    text: str = ""
    is_folder: bool = False


Edit = FileEdit | FileRename | FileCreate


@dataclass(frozen=True)
class SkippedFile:
    """A file the refactoring did not look into, and why (e.g. it does not parse)."""

    path: str
    reason: str


@dataclass
class RefactoringResult:
    """What one refactoring task would do; nothing is written until it is applied."""

    edits: list[Edit]
    provenance: Provenance
    skipped_files: list[SkippedFile] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not self.edits


@dataclass(frozen=True)
class RefactorRequest:
    """One refactoring to compute.

    ``offset``/``end`` are character offsets (Python ``str`` indices) into the current text
    of ``path`` (the editor buffer when one is open). ``args`` holds the options of the
    action, e.g. ``{"new_name": "x"}`` or ``{"destination": "pkg/other.py"}``.
    """

    action: str
    path: str
    offset: int
    end: int | None = None
    args: dict[str, Any] = field(default_factory=dict)


class RefactoringError(Exception):
    """The refactoring cannot be done; the message is meant for the user."""


class InvalidNameError(RefactoringError):
    """The new name is not a valid identifier or clashes with an existing name."""
