"""What went wrong with the store, in words a user can act on.

SQLite reports every problem as ``sqlite3.Error`` with a short message; the advice differs
by class: a corrupt file is rebuilt, a locked one waited for, a read-only or full disk fixed
by the user (rebuilding would not help and would lose the records). ``store_error`` turns
any of them into a ``StoreError`` whose ``kind`` says which, so callers can decide (only a
corrupt or foreign store may be rebuilt automatically).
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

CORRUPT = "corrupt"
LOCKED = "locked"
READ_ONLY = "read-only"
FULL = "full"
IO = "io"
OTHER = "other"

# Message fragments of each SQLite result class (Python 3.10 has no ``sqlite_errorname``).
_CLASSES: list[tuple[str, tuple[str, ...]]] = [
    (CORRUPT, ("malformed", "not a database", "no such table", "no such column", "corrupt")),
    (LOCKED, ("locked", "busy")),
    (READ_ONLY, ("readonly", "read-only", "unable to open", "permission", "access")),
    (FULL, ("full",)),
    (IO, ("i/o", "ioerr")),
]


class StoreError(Exception):
    """The store cannot be used as it is; the message says how to recover, ``kind`` says
    what class of problem it is (``CORRUPT`` stores may be rebuilt, no other kind)."""

    def __init__(self, message: str, kind: str = CORRUPT) -> None:
        super().__init__(message)
        self.kind = kind


def recovery_hint(path: Path) -> str:
    return (
        f"run `reks store --rebuild` (or `pytest --reks-all`) to recreate it; "
        f"the old file is kept as {path.name}.bak"
    )


def error_class(exc: sqlite3.Error) -> str:
    """The class of a SQLite error: CORRUPT, LOCKED, READ_ONLY, FULL, IO or OTHER."""
    text = f"{getattr(exc, 'sqlite_errorname', '')} {exc}".lower()
    for kind, fragments in _CLASSES:
        if any(fragment in text for fragment in fragments):
            return kind
    return OTHER


def folder_is_writable(path: Path) -> bool:
    """Whether a file can be created beside ``path`` (tried: permission bits do not tell
    root about read-only mounts or immutable folders)."""
    try:
        with tempfile.TemporaryFile(dir=path.parent):
            return True
    except OSError:
        return False


def store_error(path: Path, exc: sqlite3.Error, *, writing: bool) -> StoreError:
    """The StoreError to report for ``exc`` raised while using the store at ``path``
    (``writing``: the command needed to write to it)."""
    kind = error_class(exc)
    if kind == READ_ONLY and "unable to open" in str(exc) and folder_is_writable(path):
        kind = IO  # the folder is writable: something else keeps SQLite from opening it
    if kind == CORRUPT:
        message = f"the dependency store {path} is corrupt ({exc}); " + recovery_hint(path)
    elif kind == LOCKED:
        message = (
            f"the dependency store {path} is locked by another process ({exc}); "
            "try again when the other run has finished"
        )
    elif kind == READ_ONLY:
        message = (
            f"the dependency store {path} cannot be "
            + ("written" if writing else "opened")
            + f" ({exc}): its folder or file is read-only"
            + ("; this command records dependencies and must write to it" if writing else "")
            + "; make it writable (commands that only read it, such as `reks affected`,"
            " work without)"
        )
    elif kind == FULL:
        message = (
            f"the disk holding the dependency store {path} is full ({exc}); "
            "free some space and run again (the store is unchanged)"
        )
    elif kind == IO:
        message = (
            f"the dependency store {path} could not be read or written ({exc}): "
            "a disk or file-system error; check the disk and run again"
        )
    else:
        message = f"the dependency store {path} failed: {type(exc).__name__}: {exc}"
    return StoreError(message, kind)
