"""Organize imports of one module (sort, remove unused and duplicates)."""

from __future__ import annotations

from rope.refactor.importutils import ImportOrganizer

from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.provenance import Hints


def organize_imports(ctx: Context) -> Planned:
    changes = ImportOrganizer(ctx.project).organize_imports(ctx.resource)
    return Planned(changes, "organize-imports", f"organize imports of {ctx.rel}", Hints())
