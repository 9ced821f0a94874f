"""Extract method and extract variable (with the "similar occurrences" and global variants)."""

from __future__ import annotations

from rope.refactor import extract as rope_extract
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


def similar_regions(ctx: Context, variable: bool) -> list[tuple[int, int]]:
    """The regions (rope's offsets) an extract with ``similar`` replaces, selection included.

    rope does not expose them; this repeats the first steps of its ``get_changes`` (rope
    1.15), so each replaced occurrence can be checked like the selected one.
    """
    info = rope_extract._ExtractInfo(
        ctx.project,
        ctx.resource,
        ctx.offset,
        ctx.end,
        ctx.str_arg("name"),
        variable=variable,
        similar=True,
        make_global=bool(ctx.arg("global", False)),
    )
    info.kind = "variable" if variable else "method"
    collector = rope_extract._ExtractPerformer(info)._collect_info()
    return [match.get_region() for match in collector.matches]
