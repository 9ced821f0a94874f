"""Introduce parameter and change signature (add, remove, reorder parameters)."""

from __future__ import annotations

from typing import Any

from rope.refactor.change_signature import (
    ArgumentAdder,
    ArgumentNormalizer,
    ArgumentRemover,
    ArgumentReorderer,
    ChangeSignature,
)
from rope.refactor.introduce_parameter import IntroduceParameter

from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.names import check_identifier
from lsp_server.refactor.provenance import Hints


def introduce_parameter(ctx: Context) -> Planned:
    name = ctx.str_arg("name")
    check_identifier(name)
    changes = IntroduceParameter(ctx.project, ctx.resource, ctx.offset).get_changes(name)
    return Planned(changes, "introduce-parameter", f"introduce parameter `{name}`", Hints())


def _changer(spec: dict[str, Any]) -> Any:
    op = spec.get("op")
    if op == "remove":
        return ArgumentRemover(int(spec["index"]))
    if op == "add":
        check_identifier(str(spec["name"]))
        return ArgumentAdder(
            int(spec["index"]), str(spec["name"]), spec.get("default"), spec.get("value")
        )
    if op == "reorder":
        return ArgumentReorderer([int(i) for i in spec["order"]])
    if op == "normalize":
        return ArgumentNormalizer()
    raise RefactoringError(f"unknown signature change {op!r} (add, remove, reorder, normalize)")


def change_signature(ctx: Context) -> Planned:
    """``args['changes']``: list of ``{"op": "add"|"remove"|"reorder"|"normalize", ...}``."""
    specs = ctx.arg("changes")
    if not isinstance(specs, list) or not specs:
        raise RefactoringError("change signature needs a list of changes")
    changers = [_changer(spec) for spec in specs]
    signer = ChangeSignature(ctx.project, ctx.resource, ctx.offset)
    files, skipped = ctx.scope_files(str(signer.name))
    changes = signer.get_changes(
        changers, in_hierarchy=True, resources=files, task_handle=ctx.job.handle
    )
    return Planned(
        changes, "change-signature", f"change signature of `{signer.name}`", Hints(), skipped
    )
