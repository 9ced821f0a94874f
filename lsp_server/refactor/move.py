"""Move: a global function or class to another module, a method to the class of one of
its attributes, a module to another package. The destination is an argument
(``destination``: a module path or package folder, root-relative or absolute; for a method
the attribute name)."""

from __future__ import annotations

import os

from rope.refactor.move import MoveGlobal, MoveMethod, MoveModule, create_move

from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.names import check_identifier
from lsp_server.refactor.provenance import Hints


def _destination(ctx: Context, value: str):
    """A path (absolute or root-relative) or a dotted module name (``pkg.util``)."""
    candidates = [value if os.path.isabs(value) else ctx.workspace.abspath(value)]
    if "/" not in value and not value.endswith(".py"):
        dotted = ctx.workspace.abspath(value.replace(".", "/"))
        candidates += [dotted + ".py", dotted]
    for path in candidates:
        if os.path.exists(path):
            return ctx.workspace.resource(path)
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
    dest = _destination(ctx, destination)
    if isinstance(mover, MoveGlobal):
        files, skipped = ctx.scope_files(str(mover.old_name))
        if not dest.is_folder() and dest not in files:
            files.append(dest)  # rope writes the moved code only into searched files
        changes = mover.get_changes(dest, resources=files, task_handle=ctx.job.handle)
        hints = Hints(pair_moved=True)
        return Planned(
            changes, "move-global", f"move `{mover.old_name}` to `{dest.path}`", hints, skipped
        )
    assert isinstance(mover, MoveModule)
    if not dest.is_folder():
        raise RefactoringError("a module moves into a package folder")
    files, skipped = ctx.scope_files(str(mover.old_name))
    changes = mover.get_changes(dest, resources=files, task_handle=ctx.job.handle)
    return Planned(
        changes, "move-module", f"move `{mover.old_name}` to `{dest.path}`", Hints(), skipped
    )
