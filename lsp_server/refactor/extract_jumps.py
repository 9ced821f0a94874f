"""Extract method of a selection that jumps out of itself, where rope refuses.

rope will not extract a selection with a ``return`` that is not its last statement, with
two returns, or with a ``break``/``continue`` whose loop is outside the selection. These
are the commonest selections it refuses, and each is sound to extract when the new
function hands the jump back to its caller:

- every path of the selection returns, and it only jumps by returning: the new function
  is the selection as it is, and the call is returned (``return new(...)``);
- otherwise the new function returns a tuple: which jump was taken (``None``, ``"return"``,
  ``"break"``, ``"continue"``), the returned value when the selection returns, and the
  variables read after the selection; the call site unpacks it and jumps the same way.

A variable read after the selection must be bound at every exit it is handed back from;
one that may be unbound at a ``break``/``continue`` is passed in when it is bound at the
call, or the extraction is refused naming it and the jump. The result then goes through
the same semantic checks as rope's (``semantics.extract_method``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from rope.base import exceptions as rope_exceptions
from rope.base.change import ChangeContents, ChangeSet

from lsp_server.refactor import extract
from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.extract_place import Placement, placement
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.provenance import Hints
from lsp_server.refactor.semantics.edit import Source, old_source, place
from lsp_server.refactor.semantics.flow import (
    binds,
    local_names,
    same_runs,
    scope_binds,
    walk_statements,
)
from lsp_server.refactor.semantics.jumps import (
    escaping_jumps,
    global_names,
    jump_kind,
    live_at_jumps,
)
from lsp_server.refactor.semantics.liveness import assigned_after
from lsp_server.refactor.semantics.region import RegionFlow, region_flow

ROPE_JUMP_REFUSALS = (
    "Return should be the last statement",
    "A break/continue without having a matching for/while loop",
    "Extracted piece can have only one return statement",
)
"""rope's refusals this module answers with its own extraction."""

Edit = tuple[int, int, str]
_LOOSE = (ast.Tuple, ast.NamedExpr, ast.Lambda, ast.Yield, ast.YieldFrom, ast.Starred)


def extract_method(ctx: Context) -> Planned:
    """rope's extract method; where rope refuses a selection for its jumps, ours."""
    try:
        return extract.extract_method(ctx)
    except rope_exceptions.RefactoringError as exc:
        if not any(reason in str(exc) for reason in ROPE_JUMP_REFUSALS):
            raise
        return extract_with_jumps(ctx, str(exc))


@dataclass
class _Region:
    """The selected lines of the old text and where the new function goes."""

    src: Source
    flow: RegionFlow
    start: int
    """Start of the first selected line."""
    end: int
    """End of the last selected line (before its newline)."""
    indent: str
    step: str
    """One level of indentation, as the enclosing function uses it."""
    where: Placement

    @property
    def def_indent(self) -> str:
        return self.where.def_indent

    @property
    def receiver(self) -> str | None:
        """The enclosing method's ``self`` when the new function is a method."""
        return self.where.receiver


def _line_end(text: str, offset: int) -> int:
    found = text.find("\n", offset)
    return len(text) if found < 0 else found


def _region(ctx: Context, src: Source, flow: RegionFlow, name: str) -> _Region:
    first, last = flow.statements[0], flow.statements[-1]
    start = src.starts[first.lineno - 1]
    end = _line_end(src.text, src.end(last))
    indent = src.text[start : src.start(first)]
    tail = src.text[src.end(last) : end].strip()
    selected = src.text[ctx.offset : ctx.end].strip()
    whole = src.text[src.start(first) : src.end(last)]
    rest = selected[len(whole) :] if selected.startswith(whole) else "x"
    stray = [line for line in rest.split("\n") if line.strip() and line.strip()[0] != "#"]
    if indent.strip() or (tail and not tail.startswith("#")) or stray:
        raise RefactoringError(
            f"extract method `{name}`: select whole lines of statements to extract a "
            f"selection that jumps ({place(ctx, first.lineno)})"
        )
    for node in (n for stmt in flow.statements for n in ast.walk(stmt)):
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and node.end_lineno != node.lineno:
            raise RefactoringError(
                f"extract method `{name}`: the string at {place(ctx, node.lineno)} spans "
                "lines; moving it to another indentation would change it"
            )
    function = flow.function
    def_line = src.starts[function.lineno - 1]
    body_line = src.starts[function.body[0].lineno - 1]
    own = src.text[def_line : src.start(function)]
    body = src.text[body_line : src.start(function.body[0])]
    step = body[len(own) :] if body.startswith(own) and len(body) > len(own) else "    "
    where = placement(ctx, src, flow, name)
    return _Region(src, flow, start, end, indent, step, where)


def _refuse_scope_declarations(ctx: Context, flow: RegionFlow, name: str) -> None:
    """Refuses ``nonlocal`` in the function and declarations inside the selection."""
    inside = set(walk_statements(flow.statements))
    for stmt in walk_statements(flow.function.body):
        if isinstance(stmt, ast.Nonlocal) or (isinstance(stmt, ast.Global) and stmt in inside):
            raise RefactoringError(
                f"extract method `{name}`: `{type(stmt).__name__.lower()}` at "
                f"{place(ctx, stmt.lineno)} cannot move to a new function with the jumps"
            )


def _first_use(flow: RegionFlow, var: str) -> tuple[int, int]:
    for stmt in flow.statements:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id == var:
                return (node.lineno, node.col_offset)
    return (0, 0)


def _refuse_unsupported(ctx: Context, region: _Region, name: str) -> None:
    nodes = [n for stmt in region.flow.statements for n in ast.walk(stmt)]
    for node in nodes:
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            reason = "`yield`, which cannot leave its function"
        elif (
            isinstance(node, ast.Name)
            and node.id == region.receiver
            and not isinstance(node.ctx, ast.Load)
        ):
            reason = f"a new binding of `{node.id}`"
        elif (
            region.receiver is None
            and isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "super"
            and not node.args
        ):
            reason = "`super()` outside its class"
        else:
            continue
        raise RefactoringError(
            f"extract method `{name}`: the selection has {reason} at {place(ctx, node.lineno)}"
        )


def _interface(
    ctx: Context, region: _Region, jumps: list[ast.stmt], name: str
) -> tuple[list[str], list[str]]:
    """The new function's parameters and the variables it hands back (beside the jump)."""
    flow = region.flow
    unknown = sorted(flow.needed - flow.assigned - flow.maybe_assigned)
    if unknown:
        raise RefactoringError(
            f"extract method `{name}`: `{unknown[0]}` is read in the selection "
            f"({place(ctx, _first_use(flow, unknown[0])[0])}) before any assignment"
        )
    params = sorted(flow.needed - {region.receiver}, key=lambda v: (_first_use(flow, v), v))
    loop_jumps = [j for j in jumps if isinstance(j, (ast.Break, ast.Continue))]
    outputs = set(flow.live_out)
    if loop_jumps:
        bound: set[str] = set()
        for stmt in walk_statements(flow.statements):
            bound |= binds(stmt) | scope_binds(stmt)
        outputs |= bound & live_at_jumps(flow, loop_jumps) & local_names(flow.function)
    at_end = assigned_after(flow.statements, set(params))
    for var in sorted(outputs):
        unbound_at_end = at_end is not None and var not in at_end
        if var in params or not (unbound_at_end or loop_jumps):
            continue
        if var in flow.assigned:
            params.append(var)  # bound at the call: every exit can hand it back
            continue
        leaves = loop_jumps[0] if loop_jumps and not unbound_at_end else flow.statements[-1]
        raise RefactoringError(
            f"extract method `{name}`: `{var}` is read after the selection but may be "
            f"unbound where the selection leaves at {place(ctx, leaves.lineno)}"
        )
    return params, sorted(outputs)


def _refuse_finally(
    ctx: Context, flow: RegionFlow, name: str, kinds: list[str], unbound: set[str]
) -> None:
    """A return hands back placeholders for outputs that may be unbound; a ``finally``
    around the selection would read them after the return."""
    if "return" not in kinds or not unbound:
        return
    for stmt in walk_statements(flow.function.body):
        around = isinstance(stmt, ast.Try) and flow.holder in set(walk_statements([stmt]))
        if around and stmt.finalbody:  # type: ignore[attr-defined]
            raise RefactoringError(
                f"extract method `{name}`: the selection returns inside the `try` at "
                f"{place(ctx, stmt.lineno)}, whose `finally` may read "
                f"`{sorted(unbound)[0]}`, which the selection binds"
            )


def _fresh(src: Source, base: str, taken: set[str]) -> str:
    names = taken | set(re.findall(r"[A-Za-z_]\w*", src.text))
    found, n = base, 0
    while found in names:
        n += 1
        found = f"{base}_{n}"
    taken.add(found)
    return found


def _exit_value(
    src: Source, jump: ast.stmt, has_value: bool, outputs: list[str], kept: bool
) -> str:
    """What the new function returns in place of ``jump`` (None: falling off its end)."""
    if isinstance(jump, ast.Return):
        value = "None" if jump.value is None else src.segment(jump.value)
        if isinstance(jump.value, _LOOSE):  # not a tuple element as written
            value = f"({value})"
        # Placeholders, unless every output is bound throughout (a parameter): then the
        # caller keeps the values a `finally` around the call may still read.
        parts = ['"return"', value] + (outputs if kept else ["None"] * len(outputs))
    else:
        parts = [f'"{jump_kind(jump)}"'] + (["None"] if has_value else []) + outputs
    return "return " + ", ".join(parts)


def _reindent(text: str, old: str, new: str) -> list[str]:
    out = []
    for line in text.split("\n"):
        if not line.strip():
            out.append("")
        elif line.startswith(old):
            out.append(new + line[len(old) :])
        else:
            raise RefactoringError("the selection's lines are not indented like its first")
    return out


@dataclass
class _Shape:
    """How the new function hands its jumps back: the names the call site unpacks."""

    params: list[str]
    outputs: list[str]
    kinds: list[str]
    fields: list[str]
    """Names the call's result is unpacked to; empty when the call is returned."""


def _function_text(region: _Region, name: str, shape: _Shape, jumps: list[ast.stmt]) -> str:
    src, flow = region.src, region.flow
    has_value = "return" in shape.kinds
    edits: list[Edit] = []
    if shape.fields:
        for jump in jumps:
            kept = set(shape.outputs) <= set(shape.params)
            new = _exit_value(src, jump, has_value, shape.outputs, kept)
            edits.append((src.start(jump), src.end(jump), new))
    body = src.text[region.start : region.end]
    for start, end, new in sorted(edits, reverse=True):
        body = body[: start - region.start] + new + body[end - region.start :]
    inner = region.def_indent + region.step
    lines = _reindent(body, region.indent, inner)
    if shape.fields and flow.falls_through:
        tail = ["None"] + (["None"] if has_value else []) + shape.outputs
        lines.append(f"{inner}return {', '.join(tail)}")
    declared = global_names(flow)
    if declared:
        lines.insert(0, f"{inner}global {', '.join(declared)}")
    params = ([region.receiver] if region.receiver else []) + shape.params
    is_async = any(
        isinstance(n, (ast.Await, ast.AsyncFor, ast.AsyncWith))
        for stmt in flow.statements
        for n in ast.walk(stmt)
    )
    header = f"{region.def_indent}{'async ' if is_async else ''}def {name}({', '.join(params)}):"
    return "\n".join([header, *lines])


def _call_text(region: _Region, name: str, shape: _Shape, is_async: bool) -> str:
    callee = f"{region.receiver}.{name}" if region.receiver else name
    call = f"{'await ' if is_async else ''}{callee}({', '.join(shape.params)})"
    indent, step = region.indent, region.step
    if not shape.fields:
        return f"{indent}return {call}"
    lines = [f"{indent}{', '.join(shape.fields)} = {call}"]
    for kind in shape.kinds:
        then = f"return {shape.fields[1]}" if kind == "return" else kind
        lines += [f'{indent}if {shape.fields[0]} == "{kind}":', f"{indent}{step}{then}"]
    return "\n".join(lines)


def _similar_calls(ctx: Context, region: _Region, shape: _Shape, name: str) -> list[Edit]:
    """With ``--similar``: calls replacing the other runs of the selected statements in
    its function that hand back the same values; a run whose interface differs (another
    variable read after it) is left as it is."""
    src, is_async = region.src, region.flow.function.__class__ is ast.AsyncFunctionDef
    calls: list[Edit] = []
    for run in same_runs(region.flow.function, region.flow.statements):
        start, end = src.starts[run[0].lineno - 1], _line_end(src.text, src.end(run[-1]))
        other = region_flow(src, src.start(run[0]), src.end(run[-1]))
        indent = src.text[start : src.start(run[0])]
        tail = src.text[src.end(run[-1]) : end].strip()
        if other is None or other.statements != run or indent.strip() or tail:
            continue
        occurrence = replace(region, flow=other, start=start, end=end, indent=indent)
        try:
            interface = _interface(ctx, occurrence, escaping_jumps(run), name)
            _refuse_finally(ctx, other, name, shape.kinds, set(interface[1]) - set(interface[0]))
        except RefactoringError:
            continue
        if interface == (shape.params, shape.outputs):
            calls.append((start, end, _call_text(occurrence, name, shape, is_async)))
    return calls


def extract_with_jumps(ctx: Context, rope_message: str) -> Planned:
    """Extract the selection, whose jumps rope refused (``rope_message``), ourselves."""
    name = ctx.str_arg("name")
    src = old_source(ctx)
    flow = region_flow(src, ctx.offset, ctx.end) if src is not None else None
    if src is None or flow is None or not flow.statements:
        raise RefactoringError(rope_message)
    region = _region(ctx, src, flow, name)
    _refuse_unsupported(ctx, region, name)
    _refuse_scope_declarations(ctx, flow, name)
    jumps = escaping_jumps(flow.statements)
    kinds: list[str] = [
        k for k in ("return", "break", "continue") if k in {jump_kind(j) for j in jumps}
    ]
    params, outputs = _interface(ctx, region, jumps, name)
    _refuse_finally(ctx, flow, name, kinds, set(outputs) - set(params))
    fields: list[str] = []
    if flow.falls_through or kinds != ["return"]:
        taken = {name, *params, *outputs}
        fields = [_fresh(src, "jump", taken)]
        fields += [_fresh(src, "value", taken)] if "return" in kinds else []
        fields += outputs
    shape = _Shape(params, outputs, kinds, fields)
    definition = _function_text(region, name, shape, jumps)
    is_async = definition.lstrip().startswith("async ")
    blank = "\n\n\n" if not region.def_indent else "\n\n"
    at = region.where.insert_at
    new_function = definition + "\n\n" if region.where.before else blank + definition
    edits: list[Edit] = [
        (at, at, new_function),
        (region.start, region.end, _call_text(region, name, shape, is_async)),
    ]
    if ctx.arg("similar", False):
        edits += _similar_calls(ctx, region, shape, name)
    text = src.text
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    changes = ChangeSet(f"Extracting method <{name}>")
    changes.add_change(ChangeContents(ctx.resource, text))
    hints = Hints(derived_from=[ctx.unit_at(ctx.request.offset)])
    jump_names = frozenset(fields[: len(fields) - len(outputs)])
    description = f"extract method `{name}`"
    return Planned(
        changes, "extract-method", description, hints, jump_names=jump_names, similar_checked=True
    )
