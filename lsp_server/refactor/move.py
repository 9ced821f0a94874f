"""Move: a global function or class to another module, a method to the class of one of
its attributes, a module to another package. The destination is an argument
(``destination``: a module path or package folder, root-relative or absolute, or a dotted
module name, found in the project's source folders too: a src layout; for a method the
attribute name). A global may move into a module that does not exist yet: it is created.

rope's result for a global is mended and checked before it is returned
(``lsp_server.refactor.semantics.move_checks``): importers rope left behind are pointed at
the new module, a public old module keeps the name importable, and a result that would
leave an import failing or create an import cycle is refused."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

from rope.base import libutils
from rope.base.change import ChangeContents, ChangeSet, CreateFile
from rope.base.resources import File, Resource
from rope.refactor.move import MoveGlobal, MoveMethod, MoveModule, create_move

from lsp_server.refactor.changes import Simulation, simulate
from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.names import check_identifier
from lsp_server.refactor.provenance import Hints
from lsp_server.refactor.semantics.import_order import check_late_imports_kept
from lsp_server.refactor.semantics.move_checks import (
    ModuleGraph,
    MovedGlobal,
    binds_in,
    check_move,
    check_names_kept,
    is_public,
    mend_importers,
    reexport,
)


class _NewModule(File):
    """A module the move creates: rope may plan writing into it (it reads as empty)."""

    def exists(self) -> bool:
        return True

    def read(self) -> str:
        return ""

    def read_bytes(self) -> bytes:
        return b""


class _ProjectWithNewModule:
    """The rope project as a move into a new module sees it: rope asks for the
    destination's module, which is empty (nothing on disk to read or to watch)."""

    def __init__(self, project: Any, new_module: Resource) -> None:
        self._project = project
        self._new_module = new_module

    def get_pymodule(self, resource: Resource, force_errors: bool = False) -> Any:
        if resource == self._new_module:
            return libutils.get_string_module(self._project, "", resource)
        return self._project.get_pymodule(resource, force_errors)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._project, name)


def _candidates(ctx: Context, value: str) -> list[str]:
    """Absolute paths ``value`` may name: a path, or a dotted module name below the root
    or a source folder (``src/``)."""
    candidates = [value if os.path.isabs(value) else ctx.workspace.abspath(value)]
    if "/" not in value and not value.endswith(".py"):
        relative = value.replace(".", "/")
        folders = [ctx.workspace.root]
        folders += [f.real_path for f in ctx.project.get_source_folders()]
        for folder in dict.fromkeys(folders):
            dotted = os.path.join(folder, *relative.split("/"))
            candidates += [dotted + ".py", dotted]
    return candidates


def _destination(ctx: Context, value: str, new_module_ok: bool) -> tuple[Resource, bool]:
    """The destination's resource, and whether the move creates it (a module in an
    existing folder)."""
    candidates = _candidates(ctx, value)
    for path in candidates:
        if os.path.exists(path):
            return ctx.workspace.resource(path), False
    if new_module_ok:
        for path in candidates:
            folder = os.path.dirname(path)
            if path.endswith(".py") and os.path.isdir(folder) and ctx.workspace.contains(path):
                return _NewModule(ctx.project, ctx.workspace.relpath(path)), True
    raise RefactoringError(f"destination {value} does not exist; create the module first")


def move(ctx: Context) -> Planned:
    destination = ctx.str_arg("destination")
    offset = None if ctx.arg("module", False) else ctx.offset
    mover = create_move(ctx.project, ctx.resource, offset)
    if isinstance(mover, MoveMethod):
        check_identifier(destination, "attribute name")
        new_name = ctx.arg("new_name")
        changes = mover.get_changes(destination, new_name=new_name)
        source = ctx.unit_at(ctx.request.offset)
        # The method's body goes to the attribute's class; the old method now delegates.
        hints = Hints(derived_from=[source], pair_moved=False)
        from lsp_server.rts.provenance import Origin

        hints.derived_origin = Origin.MOVED
        return Planned(changes, "move-method", f"move method to `{destination}`", hints)
    dest, created = _destination(ctx, destination, isinstance(mover, MoveGlobal))
    if isinstance(mover, MoveGlobal):
        return _move_global(ctx, mover, dest, created)
    assert isinstance(mover, MoveModule)
    if not dest.is_folder():
        raise RefactoringError("a module moves into a package folder")
    files, skipped = ctx.scope_files(str(mover.old_name))
    changes = mover.get_changes(dest, resources=files, task_handle=ctx.job.handle)
    return Planned(
        changes, "move-module", f"move `{mover.old_name}` to `{dest.path}`", Hints(), skipped
    )


def _move_global(ctx: Context, mover: MoveGlobal, dest: Resource, created: bool) -> Planned:
    if dest.is_folder():
        raise RefactoringError("a global moves into a module, not a package folder")
    files, skipped = ctx.scope_files(str(mover.old_name))
    if dest not in files:
        files.append(dest)  # rope writes the moved code only into searched files
    if created:
        mover.project = _ProjectWithNewModule(ctx.project, dest)
    changes = mover.get_changes(dest, resources=files, task_handle=ctx.job.handle)
    if created:
        # Created first: the simulation then gives the module its text.
        changes.changes.insert(0, CreateFile(dest.parent, dest.name))
    moved = MovedGlobal(
        name=str(mover.old_name),
        old_path=ctx.rel,
        new_path=dest.path,
        new_module=libutils.modname(dest),
    )
    accessor = _mend(ctx, changes, moved, files)
    # A lazy re-export is a module ``__getattr__`` made from nothing: created, still exact.
    hints = Hints(pair_moved=True, creates=accessor)
    return Planned(
        changes, "move-global", f"move `{mover.old_name}` to `{dest.path}`", hints, skipped
    )


class _ProjectTexts(Mapping[str, str]):
    """Root-relative path -> text of the project's Python files after the planned changes,
    read only when asked for."""

    def __init__(self, ctx: Context, sim: Simulation, extra: dict[str, str]) -> None:
        self.ctx, self.sim, self.extra = ctx, sim, extra
        self.paths = {ctx.workspace.relpath(f.real_path) for f in ctx.workspace.python_files()}
        self.paths |= {ctx.workspace.relpath(p) for p, t in sim.after.items() if t is not None}
        self.paths -= {ctx.workspace.relpath(p) for p, t in sim.after.items() if t is None}

    def __getitem__(self, rel: str) -> str:
        if rel in self.extra:
            return self.extra[rel]
        if rel not in self.paths:
            raise KeyError(rel)
        return self.sim.text(self.ctx.workspace, self.ctx.workspace.abspath(rel)) or ""

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.paths))

    def __len__(self) -> int:
        return len(self.paths)


def _mend(ctx: Context, changes: ChangeSet, moved: MovedGlobal, searched: list[File]) -> bool:
    """Add to ``changes`` what rope leaves out (see the module docstring), then check the
    whole result; raises ``RefactoringError`` naming the place when it cannot be mended.
    True when the old module gets a lazy re-export (a new module ``__getattr__``)."""
    sim = simulate(ctx.workspace, changes)
    extra: dict[str, str] = {}
    project = _ProjectTexts(ctx, sim, extra)
    mentioning = {f.path for f in searched} | {ctx.workspace.relpath(p) for p in sim.after}
    importers = {rel: project[rel] for rel in mentioning if rel in project.paths}
    extra.update(mend_importers(importers, moved, project.paths))
    old_text = project[moved.old_path]
    lazily = False
    if is_public(moved, project.paths) and not binds_in(old_text, moved.name, strict=True):
        graph = ModuleGraph(project, project.paths)
        lazily = graph.path_between(moved.new_path, moved.old_path) is not None
        extra[moved.old_path] = reexport(old_text, moved, lazily, project.paths)
    importers.update(extra)
    before = _ProjectTexts(ctx, Simulation(), {})
    check_move(importers, project, moved, before=before)
    check_names_kept(importers, project, moved, before)
    for rel, text in sorted(importers.items()):
        if rel in before.paths:
            check_late_imports_kept(rel, before[rel], text, moved.name)
    for rel, text in sorted(extra.items()):
        resource = ctx.workspace.resource(ctx.workspace.abspath(rel))
        changes.add_change(ChangeContents(resource, text))
    return lazily
