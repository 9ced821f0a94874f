"""Organize imports of one module (sort, remove unused and duplicates).

rope's organizer rewrites the module around the imports too (it drops the blank lines after
a module docstring, even in a module without imports). Organizing imports must touch
nothing but the import block: rope's new block is spliced into the module's own text.

An import that follows definitions (a late import, usually there to break an import cycle)
is left where it is: rope would lift it into the top block, and the module that it must
follow would then load too early (``semantics.import_order``). Only the imports above the
first definition are organized.
"""

from __future__ import annotations

import ast

from rope.base import libutils
from rope.base.change import ChangeContents, ChangeSet
from rope.refactor.importutils import ImportTools

from lsp_server.project.text import parse_python
from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.provenance import Hints
from lsp_server.refactor.semantics.import_order import late_import_lines


def organize_imports(ctx: Context) -> Planned:
    description = f"organize imports of {ctx.rel}"
    resource = ctx.resource
    old = resource.read()
    hidden = libutils.get_string_module(ctx.project, _without_late_imports(old), resource)
    organized = ImportTools(ctx.project).organize_imports(hidden)
    new = None if organized is None else splice_imports(old, organized)
    if new is None or new == old:
        return Planned(None, "organize-imports", description, Hints())
    spliced = ChangeSet(description)
    spliced.add_change(ChangeContents(resource, new))
    return Planned(spliced, "organize-imports", description, Hints())


def _without_late_imports(text: str) -> str:
    """``text`` with its late imports blanked out, line for line, so that rope neither lifts
    them nor counts them (their lines stay empty: the others keep their numbers)."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError):
        return text
    late = late_import_lines(text)
    lines = text.splitlines(keepends=True)
    for statement in tree.body:
        if statement.lineno in late:
            for index in range(statement.lineno - 1, statement.end_lineno or statement.lineno):
                lines[index] = "\n"
    return "".join(lines)


def _import_lines(text: str) -> tuple[int, int] | None:
    """0-based first line and end line (exclusive) of the module's top-level imports above
    its first definition (the late ones below stay where they are)."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError):
        return None
    late = late_import_lines(text)
    imports = [
        n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom) and n.lineno not in late
    ]
    if not imports:
        return None
    return imports[0].lineno - 1, imports[-1].end_lineno or imports[-1].lineno


def splice_imports(old: str, organized: str) -> str | None:
    """``old`` with its import block replaced by the one of ``organized`` (rope's result);
    None when ``old`` has no imports to organize."""
    region = _import_lines(old)
    if region is None:
        return None
    old_lines = old.splitlines(keepends=True)
    before, after = old_lines[: region[0]], old_lines[region[1] :]
    new_region = _import_lines(organized)
    if new_region is not None:
        block = organized.splitlines(keepends=True)[new_region[0] : new_region[1]]
        return "".join([*before, *block, *after])
    # Every import went: so does the gap that set the block apart from what came before
    # (or, at the top of the file, from what follows).
    if before:
        while before and not before[-1].strip():
            before.pop()
    else:
        while after and not after[0].strip():
            after.pop(0)
    return "".join([*before, *after])
