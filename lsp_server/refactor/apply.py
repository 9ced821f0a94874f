"""Write a refactoring's edits to disk: all of them or none.

New contents are first written to temporary files next to their targets; only when every
one is written are they renamed over the targets (``os.replace`` is atomic per file), then
files are created and renamed in order. If anything fails, what was already done is undone
from backups kept in memory, so a failed apply leaves every file as it was.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field

from lsp_server.refactor.model import Edit, FileCreate, FileEdit, FileRename, RefactoringError


@dataclass
class _Undo:
    restore: list[tuple[str, bytes | None]] = field(default_factory=list)
    unrename: list[tuple[str, str]] = field(default_factory=list)
    remove_dirs: list[str] = field(default_factory=list)

    def run(self) -> None:
        for new, old in reversed(self.unrename):
            if os.path.exists(new) and not os.path.exists(old):
                os.replace(new, old)
        for path, data in reversed(self.restore):
            if data is None:
                if os.path.isfile(path):
                    os.remove(path)
            else:
                with open(path, "wb") as handle:
                    handle.write(data)
        for folder in reversed(self.remove_dirs):
            if os.path.isdir(folder) and not os.listdir(folder):
                os.rmdir(folder)


def _encode(text: str) -> bytes:
    return text.encode("utf-8")


def _contents_first(edits: list[Edit]) -> list[Edit]:
    """Content edits at their pre-rename paths, then creations, then renames in order.

    rope may edit a module after moving it; writing it before the move is the same change
    and lets every content write be staged while all folders still exist.
    """
    renames: list[FileRename] = [e for e in edits if isinstance(e, FileRename)]
    contents: list[Edit] = []
    for index, edit in enumerate(edits):
        if not isinstance(edit, FileEdit):
            continue
        path = edit.path
        earlier = [e for e in edits[:index] if isinstance(e, FileRename)]
        for rename in reversed(earlier):
            if path == rename.new_path or path.startswith(rename.new_path + os.sep):
                path = rename.old_path + path[len(rename.new_path) :]
        contents.append(FileEdit(path, edit.old_text, edit.new_text))
    creates: list[Edit] = [e for e in edits if isinstance(e, FileCreate)]
    return [*contents, *creates, *renames]


def apply_edits(edits: list[Edit]) -> None:
    """Apply ``edits`` to disk atomically; raises ``RefactoringError`` and changes nothing
    if a file changed on disk since the refactoring read it, or if any write fails."""
    # Group consecutive content edits by their final path, following renames in order.
    edits = _contents_first(edits)
    staged: list[tuple[str, str]] = []  # (temp file, target)
    undo = _Undo()
    try:
        for edit in edits:
            if isinstance(edit, FileEdit) and os.path.exists(edit.path):
                with open(edit.path, "rb") as handle:
                    current = handle.read().decode("utf-8", "surrogateescape")
                if current.replace("\r\n", "\n") != edit.old_text.replace("\r\n", "\n"):
                    raise RefactoringError(
                        f"{edit.path} changed since the refactoring was computed; nothing written"
                    )
        for edit in edits:
            if isinstance(edit, FileEdit):
                folder = os.path.dirname(edit.path)
                fd, temp = tempfile.mkstemp(prefix=".reks-", suffix=".tmp", dir=folder or ".")
                with os.fdopen(fd, "wb") as handle:
                    handle.write(_encode(edit.new_text))
                staged.append((temp, edit.path))
            elif isinstance(edit, FileCreate) and os.path.exists(edit.path) and not edit.is_folder:
                raise RefactoringError(f"{edit.path} already exists; nothing written")
        for edit in edits:
            if isinstance(edit, FileEdit):
                temp, target = staged.pop(0)
                if os.path.exists(target):
                    mode = os.stat(target).st_mode
                    with open(target, "rb") as handle:
                        undo.restore.append((target, handle.read()))
                    os.chmod(temp, mode & 0o7777)
                else:
                    undo.restore.append((target, None))
                os.replace(temp, target)
            elif isinstance(edit, FileCreate):
                if edit.is_folder:
                    if not os.path.isdir(edit.path):
                        os.makedirs(edit.path)
                        undo.remove_dirs.append(edit.path)
                else:
                    with open(edit.path, "wb") as handle:
                        handle.write(_encode(edit.text))
                    undo.restore.append((edit.path, None))
            elif isinstance(edit, FileRename):
                if os.path.exists(edit.new_path):
                    raise RefactoringError(f"{edit.new_path} already exists; nothing written")
                parent = os.path.dirname(edit.new_path)
                if parent and not os.path.isdir(parent):
                    os.makedirs(parent)
                    undo.remove_dirs.append(parent)
                os.replace(edit.old_path, edit.new_path)
                undo.unrename.append((edit.new_path, edit.old_path))
    except BaseException:
        for temp, _target in staged:
            if os.path.exists(temp):
                os.remove(temp)
        undo.run()
        raise
