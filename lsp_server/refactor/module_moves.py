"""Renaming *and* moving a module in one step (an editor's ``workspace/willRenameFiles``
from ``pkg/a/util.py`` to ``pkg/b/numbers.py``).

rope does it in two steps (rename in place, then move to the other package), and the
second step must see the first one's files. Nothing may be written to the user's project
before the editor applies the edit, so both steps run in a scratch copy of the project's
Python files (editor buffers included); the result maps the final texts back: one edit per
changed file at its path before the rename, and the module's own rename.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_server.project.files import python_files
from lsp_server.refactor.model import (
    FileEdit,
    FileRename,
    RefactoringError,
    RefactoringResult,
    RefactorRequest,
)
from lsp_server.refactor.provenance import Hints, build_provenance
from lsp_server.refactor.workspace import RopeWorkspace

if TYPE_CHECKING:  # the engine hands itself in: it offers this task and must not be imported
    from lsp_server.refactor.engine import RefactorEngine

MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
"""Project files copied too: they tell rope and the engine where the project starts."""


def _copy(workspace: RopeWorkspace, scratch: str) -> dict[str, str]:
    """Copy the project's Python files (their editor buffers when open) into ``scratch``;
    root-relative path -> text."""
    texts: dict[str, str] = {}
    for path in python_files(Path(workspace.root)):
        text = workspace.read(str(path))
        if text is None:
            continue
        rel = workspace.relpath(str(path))
        texts[rel] = text
        target = os.path.join(scratch, *rel.split("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    for marker in MARKERS:
        if os.path.isfile(os.path.join(workspace.root, marker)):
            shutil.copy(os.path.join(workspace.root, marker), scratch)
    return texts


def _step(engine: RefactorEngine, scratch: str, old_rel: str, new_rel: str) -> None:
    request = RefactorRequest(
        "rename-module",
        os.path.join(scratch, *old_rel.split("/")),
        0,
        args={"new_path": os.path.join(scratch, *new_rel.split("/"))},
    )
    engine.apply(engine.compute(request), scratch)


def rename_and_move_module(
    workspace: RopeWorkspace,
    old_path: str,
    new_path: str,
    engine_type: type[RefactorEngine],
) -> RefactoringResult:
    """The edits renaming module ``old_path`` to ``new_path`` (absolute; another folder
    and another name), with every import of it updated. Runs off the worker thread (it
    starts an engine of its own, an ``engine_type``, on the scratch copy)."""
    old_rel, new_rel = workspace.relpath(old_path), workspace.relpath(new_path)
    if not old_rel.endswith(".py") or not new_rel.endswith(".py"):
        raise RefactoringError("rename and move a package in two steps")
    folder = old_rel.rsplit("/", 1)[0] + "/" if "/" in old_rel else ""
    middle = folder + new_rel.rsplit("/", 1)[-1]  # renamed in place first
    scratch = os.path.realpath(tempfile.mkdtemp(prefix="reks-module-move-"))
    engine = engine_type()
    try:
        before = _copy(workspace, scratch)
        engine.add_root(scratch)
        _step(engine, scratch, old_rel, middle)
        _step(engine, scratch, middle, new_rel)
        after = {
            Path(p).relative_to(scratch).as_posix(): p.read_text(encoding="utf-8")
            for p in python_files(Path(scratch))
        }
    finally:
        engine.close()
        shutil.rmtree(scratch, ignore_errors=True)
    edits: list[FileEdit | FileRename] = []
    for rel, text in sorted(before.items()):
        final = after.get(new_rel if rel == old_rel else rel)
        if final is not None and final != text:
            edits.append(FileEdit(workspace.abspath(rel), text, final))
    edits.append(FileRename(old_path, new_path))
    changed = [workspace.relpath(e.path) for e in edits if isinstance(e, FileEdit)]
    sides_before: dict[str, str | None] = {rel: before[rel] for rel in (old_rel, *changed)}
    sides_before[new_rel] = None
    sides_after = {rel: after.get(rel) for rel in sides_before}
    sides_after[old_rel] = None
    description = f"move `{old_rel}` to `{new_rel}`"
    provenance = build_provenance(
        "move-module", description, sides_before, sides_after, {old_rel: new_rel}, Hints()
    )
    return RefactoringResult(list(edits), provenance)
