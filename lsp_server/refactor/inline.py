"""Inline a variable, a method (function) or a parameter (rope decides which from the
name under the cursor)."""

from __future__ import annotations

from rope.refactor.inline import InlineMethod, InlineParameter, InlineVariable, create_inline

from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.provenance import Hints


def inline(ctx: Context) -> Planned:
    inliner = create_inline(ctx.project, ctx.resource, ctx.offset)
    name = str(inliner.name)
    description = f"inline `{name}`"
    files, skipped = ctx.scope_files(name)
    if isinstance(inliner, InlineParameter):
        changes = inliner.get_changes(resources=files, task_handle=ctx.job.handle)
        return Planned(changes, "inline-parameter", description, Hints(), skipped)
    assert isinstance(inliner, (InlineMethod, InlineVariable))
    only_current = bool(ctx.arg("only_current", False))
    try:
        changes = inliner.get_changes(
            remove=not only_current,
            only_current=only_current,
            resources=files,
            task_handle=ctx.job.handle,
        )
    except AssertionError as exc:
        # rope 1.15 asserts on calls it cannot read (``h(1, **d)``) instead of refusing.
        raise RefactoringError(
            f"rope cannot inline `{name}`: its analysis of a call fails (for instance a "
            "call with `**` arguments); a limitation of rope, not an error in your file"
        ) from exc
    if isinstance(inliner, InlineMethod):
        # The inlined function disappears; its callers now hold its code.
        return Planned(changes, "inline-method", description, Hints(removes=True), skipped)
    return Planned(changes, "inline-variable", description, Hints(), skipped)
