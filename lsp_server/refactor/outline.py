"""A module's outline: where its top-level statements lie, and the few module-wide facts
code-action offers need, small enough to send between processes.

Parsing a long module holds the interpreter lock for a quarter of a second and more, so the
language server does not do it (issue 15 item 7): a worker process (``outline_process``)
parses and sends back an ``Outline``; the server then parses only the top-level
statements under a cursor (``chunk_around``), which are short, and reads everything that
needs the whole module (names assigned anywhere, the module's classes and imports) from
``ModuleFacts``.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from lsp_server.project.text import line_starts, parse_python


@dataclass(frozen=True)
class ImportFact:
    """One top-level ``import`` (``is_from`` False) or ``from ... import``."""

    is_from: bool
    module: str | None
    level: int
    names: tuple[tuple[str, str | None], ...]
    """(name, asname) of each alias."""


@dataclass(frozen=True)
class ModuleFacts:
    """What offers need to know about the whole module, not only the code at the cursor."""

    stored: frozenset[str] = frozenset()
    """Names assigned anywhere in the module (``ast.Name`` in a store context)."""
    functions: frozenset[str] = frozenset()
    """Names of the functions defined anywhere in the module."""
    classes: frozenset[str] = frozenset()
    """Names of the module's top-level classes."""
    imports: tuple[ImportFact, ...] = ()
    """The module's top-level imports, in order."""


def module_facts(tree: ast.Module) -> ModuleFacts:
    """One walk of the module for every cursor in it."""
    stored: set[str] = set()
    functions: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stored.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.add(node.name)
    imports = [
        ImportFact(
            isinstance(node, ast.ImportFrom),
            node.module if isinstance(node, ast.ImportFrom) else None,
            node.level if isinstance(node, ast.ImportFrom) else 0,
            tuple((alias.name, alias.asname) for alias in node.names),
        )
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
    ]
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    return ModuleFacts(frozenset(stored), frozenset(functions), frozenset(classes), tuple(imports))


@dataclass(frozen=True)
class Outline:
    """Character spans ``[start, end)`` of the module's top-level statements (whole lines,
    decorators included; statements sharing a line share a span), and its facts."""

    starts: tuple[int, ...] = ()
    ends: tuple[int, ...] = ()
    facts: ModuleFacts = field(default_factory=ModuleFacts)


def outline_of(text: str) -> Outline | None:
    """The outline of ``text`` (None when it is not valid Python)."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    lines = line_starts(text)
    starts: list[int] = []
    ends: list[int] = []
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        last = node.end_lineno or node.lineno
        start = lines[first - 1]
        end = lines[last] if last < len(lines) else len(text)
        if ends and start < ends[-1]:  # ``a = 1; b = 2``: one span
            ends[-1] = max(ends[-1], end)
        else:
            starts.append(start)
            ends.append(end)
    return Outline(tuple(starts), tuple(ends), module_facts(tree))


@dataclass(frozen=True)
class Chunk:
    """The top-level statements of ``text[start:end]``, parsed on their own."""

    start: int
    end: int
    tree: ast.Module


def chunk_around(text: str, outline: Outline, offset: int, end: int | None) -> Chunk | None:
    """The top-level statements the cursor ``offset`` (to ``end``) touches, with the
    comments and blank lines around it when it is between statements, parsed alone; None
    when that text does not parse (it changed since ``outline``)."""
    last = offset if end is None else max(offset, end)
    starts, ends = outline.starts, outline.ends
    before = bisect.bisect_right(starts, offset) - 1
    if before >= 0 and offset < ends[before]:
        start = starts[before]
    else:
        start = ends[before] if before >= 0 else 0
    after = bisect.bisect_right(starts, last) - 1
    if after >= 0 and last < ends[after]:
        stop = ends[after]
    else:
        stop = starts[after + 1] if after + 1 < len(starts) else len(text)
    try:
        tree = parse_python(text[start:stop])
    except (SyntaxError, ValueError):
        return None
    return Chunk(start, stop, tree)


GUESS_CHARS = 100_000
"""The longest stretch of text ``guess_chunk`` looks at, and parses: a few milliseconds."""
_STATEMENT_START = re.compile(r"^(?![ \t#)\]}\r\n\f]|(?:else|elif|except|finally)\b)", re.M)
"""A line that starts a top-level statement, as far as the line alone can tell (a line of
a multi-line string may look like one; the parse then fails)."""


def guess_chunk(text: str, offset: int, end: int | None) -> Chunk | None:
    """The top-level statements around ``offset`` (to ``end``) without an outline: read
    from the lines' indentation, parsed alone. For a code action asked before the
    document's first outline is made, or where it changed since: it must not wait for
    the whole module to be parsed. None when the guess does not parse, or when the
    statements are longer than ``GUESS_CHARS``."""
    last = offset if end is None else max(offset, end)
    start = text.rfind("\n", 0, offset) + 1
    while start > 0 and not _STATEMENT_START.match(text, start):
        if offset - start > GUESS_CHARS:
            return None
        start = text.rfind("\n", 0, start - 1) + 1
    stop_line = text.find("\n", last)
    after = None
    if stop_line >= 0:
        after = _STATEMENT_START.search(text, stop_line + 1, start + GUESS_CHARS + 1)
    stop = after.start() if after is not None else len(text)
    if stop - start > GUESS_CHARS:
        return None
    try:
        tree = parse_python(text[start:stop])
    except (SyntaxError, ValueError):
        return None
    return Chunk(start, stop, tree)


def merged_facts(known: ModuleFacts, tree: ast.Module) -> ModuleFacts:
    """``known`` (an earlier text's facts, or none) with those of ``tree`` (a part of the
    current text) added."""
    part = module_facts(tree)
    imports = tuple(dict.fromkeys((*known.imports, *part.imports)))
    return ModuleFacts(
        known.stored | part.stored,
        known.functions | part.functions,
        known.classes | part.classes,
        imports,
    )


# -- the wire (JSON) -----------------------------------------------------------------------
def outline_to_wire(outline: Outline | None) -> dict[str, Any] | None:
    if outline is None:
        return None
    facts = outline.facts
    return {
        "starts": list(outline.starts),
        "ends": list(outline.ends),
        "stored": sorted(facts.stored),
        "functions": sorted(facts.functions),
        "classes": sorted(facts.classes),
        "imports": [[i.is_from, i.module, i.level, i.names] for i in facts.imports],
    }


def outline_from_wire(data: dict[str, Any] | None) -> Outline | None:
    if data is None:
        return None
    imports = tuple(
        ImportFact(bool(is_from), module, int(level), tuple((n, a) for n, a in names))
        for is_from, module, level, names in data["imports"]
    )
    facts = ModuleFacts(
        frozenset(data["stored"]),
        frozenset(data["functions"]),
        frozenset(data["classes"]),
        imports,
    )
    return Outline(tuple(data["starts"]), tuple(data["ends"]), facts)
