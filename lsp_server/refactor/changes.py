"""rope ``ChangeSet`` -> plain edits, simulated in order without touching the disk.

rope describes a task as a sequence of changes (new contents, moves, creations). They are
replayed here over an in-memory view of the files so that each edit records the text it
applies to (the editor buffer when one is open) and ``files_before``/``files_after`` can
be filled for the Provenance.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from rope.base.change import (
    Change,
    ChangeContents,
    ChangeSet,
    CreateFile,
    CreateFolder,
    CreateResource,
    MoveResource,
    RemoveResource,
)

from lsp_server.refactor.model import Edit, FileCreate, FileEdit, FileRename, RefactoringError
from lsp_server.refactor.workspace import RopeWorkspace


@dataclass
class Simulation:
    """Edits of a task plus the text of every touched path before and after it."""

    edits: list[Edit] = field(default_factory=list)
    before: dict[str, str | None] = field(default_factory=dict)
    after: dict[str, str | None] = field(default_factory=dict)
    renamed: dict[str, str] = field(default_factory=dict)
    """Old absolute path -> new absolute path of every file a move or rename carries."""

    def text(self, workspace: RopeWorkspace, path: str) -> str | None:
        if path in self.after:
            return self.after[path]
        text = workspace.read(path)
        self.before.setdefault(path, text)
        return text

    def set_text(self, workspace: RopeWorkspace, path: str, text: str | None) -> None:
        self.text(workspace, path)
        self.after[path] = text


def _flatten(change: Change) -> Iterator[Change]:
    if isinstance(change, ChangeSet):
        for child in change.changes:
            yield from _flatten(child)
    else:
        yield change


def _same_newlines(original: str, new: str) -> str:
    # rope reads with universal newlines; give CRLF files their line endings back.
    if "\r\n" in original and "\r\n" not in new:
        return new.replace("\n", "\r\n")
    return new


def _files_under(workspace: RopeWorkspace, folder: str) -> list[str]:
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in filenames:
            if name.endswith((".py", ".pyw")):
                out.append(os.path.join(dirpath, name))
    return out


def _add_content_edit(sim: Simulation, edit: FileEdit) -> None:
    # One edit per path: rope may change a file twice in one task (e.g. rename + imports).
    for index, earlier in enumerate(sim.edits):
        if isinstance(earlier, FileEdit) and earlier.path == edit.path:
            sim.edits[index] = FileEdit(edit.path, earlier.old_text, edit.new_text)
            return
    sim.edits.append(edit)


def _fill_created(sim: Simulation, path: str, text: str) -> bool:
    """A file this task creates gets its text in the creation (there is nothing to edit
    on disk yet); False when ``path`` is not created by the task."""
    for index, earlier in enumerate(sim.edits):
        if isinstance(earlier, FileCreate) and earlier.path == path and not earlier.is_folder:
            sim.edits[index] = FileCreate(path, text)
            return True
    return False


def simulate(workspace: RopeWorkspace, changes: ChangeSet | None) -> Simulation:
    """Replay ``changes`` in memory and return the edits it amounts to."""
    sim = Simulation()
    if changes is None:
        return sim
    for change in _flatten(changes):
        if isinstance(change, ChangeContents):
            path = os.path.realpath(change.resource.real_path)
            old = sim.text(workspace, path)
            if old is None:
                raise RefactoringError(f"{path} does not exist")
            new = _same_newlines(old, change.new_contents)
            if new != old:
                if not _fill_created(sim, path, new):
                    _add_content_edit(sim, FileEdit(path, old, new))
                sim.after[path] = new
        elif isinstance(change, MoveResource):
            old_path = os.path.realpath(change.resource.real_path)
            new_path = os.path.join(
                os.path.realpath(os.path.dirname(change.new_resource.real_path)),
                os.path.basename(change.new_resource.real_path),
            )
            if os.path.exists(new_path):
                raise RefactoringError(
                    f"cannot move {workspace.relpath(old_path)}: "
                    f"{workspace.relpath(new_path)} already exists"
                )
            sim.edits.append(FileRename(old_path, new_path))
            moved = _files_under(workspace, old_path) if os.path.isdir(old_path) else [old_path]
            for src in moved:
                dst = new_path + src[len(old_path) :]
                text = sim.text(workspace, src)
                sim.after[src] = None
                sim.before.setdefault(dst, None)
                sim.after[dst] = text
                sim.renamed[src] = dst
        elif isinstance(change, (CreateFile, CreateFolder, CreateResource)):
            path = os.path.realpath(change.resource.real_path)
            folder = isinstance(change, CreateFolder) or change.resource.is_folder()
            sim.edits.append(FileCreate(path, "", is_folder=folder))
            if not folder:
                sim.before.setdefault(path, None)
                sim.after[path] = ""
        elif isinstance(change, RemoveResource):
            raise RefactoringError("refactorings that delete files are not supported")
        else:
            raise RefactoringError(f"unsupported rope change {type(change).__name__}")
    return sim
