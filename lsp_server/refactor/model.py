"""Plain data the refactoring engine returns: edits, skipped files, errors.

Nothing here knows about LSP or rope; ``lsp_server.lsp.convert`` turns these into LSP
``WorkspaceEdit`` objects and ``lsp_server.refactor.apply`` writes them to disk.
Paths are absolute POSIX strings.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
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
class Uncertain:
    """A change the engine is not sure preserves behaviour (a string that may name the
    renamed attribute, an occurrence rope calls "unsure"): it is part of the edit, but the
    user must confirm it. Placed in the old text of ``path``: 0-based ``line``, ``column``
    in characters, ``length`` characters replaced."""

    path: str
    line: int
    column: int
    length: int
    reason: str


@dataclass(frozen=True)
class SkippedFile:
    """A file the refactoring did not look into, and why (e.g. it does not parse)."""

    path: str
    reason: str


class RefactoringResult:
    """What one refactoring task would do; nothing is written until it is applied.

    ``provenance`` may be given as a function computing it: units and checksums of every
    touched file cost more than the refactoring itself on large files, and nobody needs them
    before the edit is applied, so they are computed on first access (once, thread-safe).
    ``files_after`` (root-relative path -> text, None when gone) is known without it.
    """

    def __init__(
        self,
        edits: list[Edit],
        provenance: Provenance | Callable[[], Provenance],
        skipped_files: list[SkippedFile] | None = None,
        files_after: dict[str, str | None] | None = None,
        uncertain: list[Uncertain] | None = None,
    ) -> None:
        self.edits = edits
        self.skipped_files = skipped_files or []
        self.uncertain = uncertain or []
        """Changes inside ``edits`` that need the user's confirmation."""
        self._lock = threading.Lock()
        self._provenance = provenance if isinstance(provenance, Provenance) else None
        self._make = None if isinstance(provenance, Provenance) else provenance
        if files_after is None:
            files_after = self.provenance.files_after
        self.files_after = files_after

    @property
    def provenance(self) -> Provenance:
        with self._lock:
            if self._provenance is None:
                assert self._make is not None
                self._provenance = self._make()
            return self._provenance

    @property
    def provenance_maker(self) -> Callable[[], Provenance] | None:
        """What computes the Provenance, while it has not been computed yet."""
        with self._lock:
            return self._make if self._provenance is None else None

    @property
    def is_empty(self) -> bool:
        return not self.edits

    def __repr__(self) -> str:
        return f"RefactoringResult({self.edits!r}, skipped={self.skipped_files!r})"


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
