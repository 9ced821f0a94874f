"""Extract method: rope's parameters and returned values against the data flow.

The new function must receive exactly the locals the selection may read before binding
them, each definitely assigned at the call; it must return the locals it binds that are
read afterwards, each definitely assigned at its end. rope decides by line ranges and
misses both ways inside loops: it passes a variable that a branch bound earlier in the loop
body although the selection binds it before reading it (isort's ``as_import``: unbound at
the call, ``UnboundLocalError``). Such a parameter is dropped here; what cannot be mended
is refused, naming the variable and the place.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.extract import similar_regions
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.semantics.edit import Source, new_text, old_source, place, with_new_text
from lsp_server.refactor.semantics.region import (
    RegionFlow,
    assigned_at_end,
    first_read,
    read_first,
    region_flow,
)


@dataclass
class NewFunction:
    """What rope wrote: the new function, its parameters, and the call replacing the code."""

    definition: ast.FunctionDef | ast.AsyncFunctionDef
    params: list[ast.arg]
    call: ast.Call
    returned_names: list[str] | None
    """Names the call's result is assigned to; None when the call is returned itself."""

    @property
    def receiver(self) -> set[str]:
        """The name the call passes as the new method's ``self`` (``self.new(...)``)."""
        own = self.definition.args.args
        func = self.call.func
        if self.params == own or not isinstance(func, ast.Attribute):
            return set()
        return {func.value.id} if isinstance(func.value, ast.Name) else set()


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _find_new_function(src: Source, name: str) -> NewFunction | None:
    parents = _parents(src.tree)
    definitions = [
        n
        for n in ast.walk(src.tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
    ]
    calls = [
        n
        for n in ast.walk(src.tree)
        if isinstance(n, ast.Call)
        and (
            (isinstance(n.func, ast.Name) and n.func.id == name)
            or (isinstance(n.func, ast.Attribute) and n.func.attr == name)
        )
    ]
    if len(definitions) != 1 or not calls:
        return None  # several calls: similar occurrences, checked one by one (_check_similar)
    definition = definitions[0]
    call = min(calls, key=lambda n: (n.lineno, n.col_offset))
    params = list(definition.args.args)
    decorators = {d.id for d in definition.decorator_list if isinstance(d, ast.Name)}
    if isinstance(parents.get(definition), ast.ClassDef) and "staticmethod" not in decorators:
        params = params[1:]  # self / cls
    holder = parents.get(call)
    while holder is not None and not isinstance(holder, ast.stmt):
        holder = parents.get(holder)
    returned: list[str] | None = []
    if isinstance(holder, ast.Return):
        returned = None
    elif isinstance(holder, ast.Assign) and (
        holder.value is call or (isinstance(holder.value, ast.Await) and holder.value.value is call)
    ):
        target = holder.targets[0]
        elements = target.elts if isinstance(target, ast.Tuple) else [target]
        returned = [e.id for e in elements if isinstance(e, ast.Name)]
    return NewFunction(definition, params, call, returned)


def _refuse_unbound(
    ctx: Context, flow: RegionFlow, name: str, passed: frozenset[str] = frozenset()
) -> None:
    # A name no path binds before the selection stays a local of the new function, unbound
    # exactly where it was; one bound on some paths only would have to be passed, unbound,
    # unless rope passes it and reading it is the first thing the selection does.
    unbound = sorted((flow.needed & flow.maybe_assigned) - flow.assigned)
    for var in unbound:
        if var in passed and len(unbound) == 1 and read_first(flow, var):
            continue
        raise RefactoringError(
            f"extract method `{name}`: `{var}` is read at {place(ctx, first_read(flow, var))} "
            f"but is not assigned on every path to {place(ctx, flow.holder.lineno)}; "
            f"passing it to `{name}` would raise UnboundLocalError"
        )


def _awaits(ctx: Context, flow: RegionFlow, name: str) -> bool:
    """Whether the selection awaits; refuses ``yield``, which cannot leave its function."""
    found = False
    for stmt in flow.nodes:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                raise RefactoringError(
                    f"extract method `{name}`: the selection uses `yield` at "
                    f"{place(ctx, node.lineno)}, which cannot leave its function"
                )
            found = found or isinstance(node, ast.Await)
    return found


def _check_returns(ctx: Context, flow: RegionFlow, found: NewFunction, passed: set[str]) -> None:
    name = found.definition.name
    if not flow.statements:
        return  # an expression: the call stands where it was, its value is the result
    if found.returned_names is None:
        if flow.statements and flow.falls_through:
            raise RefactoringError(
                f"extract method `{name}`: the selection does not return on every path "
                f"(from {place(ctx, flow.holder.lineno)}), but rope returns its result"
            )
        return
    missing = sorted(flow.live_out - set(found.returned_names))
    if missing:
        raise RefactoringError(
            f"extract method `{name}`: `{missing[0]}` is bound in the selection and read "
            f"after it, but rope does not return it ({place(ctx, flow.holder.lineno)})"
        )
    at_end = assigned_at_end(flow, passed)
    if at_end is None:
        return
    for var in found.returned_names:
        if var not in at_end:
            raise RefactoringError(
                f"extract method `{name}`: `{var}` is returned but may be unbound at the "
                f"end of the selection ({place(ctx, flow.statements[-1].end_lineno or 0)})"
            )


def _check_similar(
    ctx: Context, old: Source, found: NewFunction, passed: set[str], mended: bool
) -> None:
    """Each occurrence rope replaces gets the same call: its data flow must fit it too."""
    name = found.definition.name
    regions = similar_regions(ctx, variable=False)
    if mended and len(regions) > 1:
        raise RefactoringError(
            f"extract method `{name}`: rope's call needs mending (parameters or `await`), "
            f"and it replaces {len(regions)} similar occurrences; extract without similar"
        )
    for start, end in regions:
        flow = region_flow(old, start, end)
        if flow is None:
            continue
        _refuse_unbound(ctx, flow, name, frozenset(p.arg for p in found.params))
        missing = sorted(
            (flow.needed & flow.assigned) - {p.arg for p in found.params} - found.receiver
        )
        if missing:
            raise RefactoringError(
                f"extract method `{name}`: the similar occurrence at "
                f"{place(ctx, flow.holder.lineno)} reads `{missing[0]}`, which rope does not pass"
            )
        _check_returns(ctx, flow, found, passed)


Edit = tuple[int, int, str]


def _drop_params(src: Source, found: NewFunction, keep: list[bool]) -> list[Edit]:
    """Edits removing the dropped parameters from the definition and the call."""
    params, args = found.params, found.call.args
    kept = [p.arg for p, k in zip(params, keep, strict=True) if k]
    own = found.definition.args.args
    first = own.index(params[0])
    span_start = src.end(own[first - 1]) if first and not kept else src.start(params[0])
    kept_args = [src.segment(a) for a, k in zip(args, keep, strict=True) if k]
    return [
        (span_start, src.end(params[-1]), ", ".join(kept)),
        (src.start(args[0]), src.end(args[-1]), ", ".join(kept_args)),
    ]


def _make_async(src: Source, found: NewFunction) -> list[Edit]:
    """rope writes a plain ``def`` around code that awaits: make it async, await the call."""
    if isinstance(found.definition, ast.AsyncFunctionDef):
        return []
    at = src.start(found.definition)
    return [(at, at, "async "), (src.start(found.call), src.start(found.call), "await ")]


def _apply(text: str, edits: list[Edit]) -> str:
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def check_extract_method(ctx: Context, planned: Planned) -> Planned:
    """Refuse or mend rope's extract method where its data flow is wrong."""
    name = ctx.str_arg("name")
    old = old_source(ctx)
    after = new_text(ctx, planned)
    if old is None or after is None:
        return planned
    flow = region_flow(old, ctx.offset, ctx.end)
    if flow is None:
        return planned
    awaits = _awaits(ctx, flow, name)
    new = Source.parse(after)
    found = _find_new_function(new, name) if new is not None else None
    if new is None or found is None:
        _refuse_unbound(ctx, flow, name)
        return planned  # the output check refuses what does not parse
    if found.returned_names:
        found.returned_names = [n for n in found.returned_names if n not in planned.jump_names]
    rope_params = [p.arg for p in found.params]
    _refuse_unbound(ctx, flow, name, frozenset(rope_params))
    missing = sorted((flow.needed & flow.assigned) - set(rope_params) - found.receiver)
    if missing:
        raise RefactoringError(
            f"extract method `{name}`: the selection reads `{missing[0]}` "
            f"({place(ctx, first_read(flow, missing[0]))}) but rope does not pass it"
        )
    keep = [p in flow.assigned or p in flow.maybe_assigned & flow.needed for p in rope_params]
    passed = {p for p, k in zip(rope_params, keep, strict=True) if k} | found.receiver
    _check_returns(ctx, flow, found, passed)
    edits = _make_async(new, found) if awaits else []
    if ctx.arg("similar", False) and not planned.similar_checked:
        _check_similar(ctx, old, found, passed, mended=bool(edits) or not all(keep))
    if not all(keep):
        if len(found.call.args) != len(found.params) or any(
            not isinstance(a, ast.Name) for a in found.call.args
        ):
            raise RefactoringError(f"extract method `{name}`: rope's call does not match its def")
        edits += _drop_params(new, found, keep)
    return with_new_text(ctx, planned, _apply(after, edits)) if edits else planned
