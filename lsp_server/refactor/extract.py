"""Extract method and extract variable (with the "similar occurrences" and global variants)."""

from __future__ import annotations

from rope.refactor.extract import ExtractMethod, ExtractVariable

from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.names import check_free, check_identifier
from lsp_server.refactor.provenance import Hints


def extract_method(ctx: Context) -> Planned:
    name = ctx.str_arg("name")
    check_identifier(name)
    line = ctx.text.count("\n", 0, ctx.request.offset) + 1
    check_free(ctx.text, line, name, "module" if ctx.arg("global", False) else "class")
    source = ctx.unit_at(ctx.request.offset)
    extractor = ExtractMethod(ctx.project, ctx.resource, ctx.offset, ctx.end)
    changes = extractor.get_changes(
        name, similar=bool(ctx.arg("similar", False)), global_=bool(ctx.arg("global", False))
    )
    # The new function is made from the code of the unit the selection was in.
    hints = Hints(derived_from=[source])
    return Planned(changes, "extract-method", f"extract method `{name}`", hints)


def extract_variable(ctx: Context) -> Planned:
    name = ctx.str_arg("name")
    check_identifier(name)
    line = ctx.text.count("\n", 0, ctx.request.offset) + 1
    check_free(ctx.text, line, name, "module" if ctx.arg("global", False) else "function")
    extractor = ExtractVariable(ctx.project, ctx.resource, ctx.offset, ctx.end)
    changes = extractor.get_changes(
        name, similar=bool(ctx.arg("similar", False)), global_=bool(ctx.arg("global", False))
    )
    return Planned(changes, "extract-variable", f"extract variable `{name}`", Hints())
