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

import array
import ast
import base64
import bisect
import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lsp_server.project.text import line_starts, parse_python
from lsp_server.refactor.class_fields import FieldAssignments, field_assignments, from_wire, to_wire


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


MEMBER_OUTLINE_CHARS = 20_000
"""A top-level class longer than this is outlined member by member too: a code action in
it parses the class's header and the members at the cursor, not the whole class."""


@dataclass(frozen=True)
class ClassOutline:
    """A long top-level class: its header ``[start, body)`` (decorators and ``class``
    lines) and the spans ``[start, end)`` of its body's statements."""

    start: int
    end: int
    body: int
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    fields: FieldAssignments = ()
    """Its methods' assignments to ``self`` (the members parsed at a cursor are not all)."""


@dataclass(frozen=True)
class Outline:
    """Character spans ``[start, end)`` of the module's top-level statements (whole lines,
    decorators included; statements sharing a line share a span), its long classes'
    members, and its facts."""

    starts: tuple[int, ...] = ()
    ends: tuple[int, ...] = ()
    facts: ModuleFacts = field(default_factory=ModuleFacts)
    classes: tuple[ClassOutline, ...] = ()


def _spans(text: str, lines: list[int], body: list[ast.stmt]) -> tuple[list[int], list[int]]:
    """The spans of the statements ``body``: whole lines, decorators included."""
    starts: list[int] = []
    ends: list[int] = []
    for node in body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        last = node.end_lineno or node.lineno
        start = lines[first - 1]
        end = lines[last] if last < len(lines) else len(text)
        if ends and start < ends[-1]:  # ``a = 1; b = 2``: one span
            ends[-1] = max(ends[-1], end)
        else:
            starts.append(start)
            ends.append(end)
    return starts, ends


def outline_of(text: str) -> Outline | None:
    """The outline of ``text`` (None when it is not valid Python)."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    lines = line_starts(text)
    starts, ends = _spans(text, lines, tree.body)
    classes: list[ClassOutline] = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or node.body[0].lineno == node.lineno:
            continue  # not a class, or ``class C: x = 1; ...`` (no header of its own)
        index = bisect.bisect_right(starts, lines[node.lineno - 1]) - 1
        start, end = starts[index], ends[index]
        if end - start <= MEMBER_OUTLINE_CHARS:
            continue
        member_starts, member_ends = _spans(text, lines, node.body)
        body = min(member_starts[0], lines[node.body[0].lineno - 1])
        member_spans = (tuple(member_starts), tuple(member_ends))
        classes.append(ClassOutline(start, end, body, *member_spans, field_assignments(node)))
    return Outline(tuple(starts), tuple(ends), module_facts(tree), tuple(classes))


@dataclass(frozen=True)
class Chunk:
    """Statements of a text parsed on their own: ``text[start:end]`` without the lines
    ``[gap, resume)`` (a long class's members away from the cursor; none when ``gap ==
    resume``). Its ``tree`` has offsets in that shortened text."""

    start: int
    end: int
    tree: ast.Module
    gap: int = 0
    resume: int = 0
    fields: FieldAssignments | None = None
    """The whole class's assignments to ``self`` when only some of its members are here."""

    def part(self, text: str) -> str:
        if self.gap >= self.resume:
            return text[self.start : self.end]
        return text[self.start : self.gap] + text[self.resume : self.end]

    def local(self, offset: int) -> int:
        """The offset in ``part`` of the text's ``offset`` (in the chunk's lines)."""
        if self.gap < self.resume and offset >= self.resume:
            return offset - self.start - (self.resume - self.gap)
        return offset - self.start

    def outer(self, local: int) -> int:
        """The text's offset of ``part``'s offset ``local``."""
        if self.gap < self.resume and local >= self.gap - self.start:
            return local + self.start + (self.resume - self.gap)
        return local + self.start

    def shifted(self, delta: int) -> Chunk:
        """The same lines ``delta`` characters further on (an edit before them)."""
        return dataclasses.replace(
            self,
            start=self.start + delta,
            end=self.end + delta,
            gap=self.gap + delta,
            resume=self.resume + delta,
        )


def _around(
    starts: tuple[int, ...], ends: tuple[int, ...], offset: int, last: int, lo: int, hi: int
) -> tuple[int, int]:
    """The span ``[lo, hi)`` cut to the statements ``offset`` to ``last`` touches (those
    spans), or to the blank lines and comments between two of them."""
    before = bisect.bisect_right(starts, offset) - 1
    if before >= 0 and offset < ends[before]:
        start = starts[before]
    else:
        start = ends[before] if before >= 0 else lo
    after = bisect.bisect_right(starts, last) - 1
    if after >= 0 and last < ends[after]:
        stop = ends[after]
    else:
        stop = starts[after + 1] if after + 1 < len(starts) else hi
    return start, stop


def _members_around(cls: ClassOutline, offset: int, last: int, stop: int) -> tuple[int, int]:
    """The members of ``cls`` (which ends at ``stop``) that the cursor touches; between
    two members, the one before it too (a class body of comments would not parse)."""
    first, end = _around(cls.starts, cls.ends, offset, last, cls.body, stop)
    index = bisect.bisect_left(cls.starts, first)
    if index >= len(cls.starts) or cls.starts[index] >= end:  # no member inside
        before = bisect.bisect_right(cls.starts, offset) - 1
        if before >= 0:
            first = cls.starts[before]
        else:
            end = cls.ends[0]
    return first, end


def chunk_around(text: str, outline: Outline, offset: int, end: int | None) -> Chunk | None:
    """The top-level statements the cursor ``offset`` (to ``end``) touches, with the
    comments and blank lines around it when it is between statements, parsed alone
    (in a long class, its header and the members at the cursor only); None when that
    text does not parse (it changed since ``outline``)."""
    last = offset if end is None else max(offset, end)
    start, stop = _around(outline.starts, outline.ends, offset, last, 0, len(text))
    for cls in outline.classes:
        if cls.start == start and cls.end == stop:  # the cursor is in a long class
            at = max(offset, cls.body)  # on its header: with its first member
            first, upto = _members_around(cls, at, max(last, at), stop)
            empty = ast.Module(body=[], type_ignores=[])
            chunk = Chunk(start, upto, empty, cls.body, first, cls.fields)
            try:
                tree = parse_python(chunk.part(text))
            except (SyntaxError, ValueError):
                break  # the whole class, then
            return dataclasses.replace(chunk, tree=tree)
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


def _decorated(text: str, line: int) -> bool:
    """The line starting at ``line`` follows a decorator (it is part of that statement)."""
    previous = text.rfind("\n", 0, line - 1) + 1
    return line > 0 and text.startswith("@", previous)


def guess_chunk(text: str, offset: int, end: int | None) -> Chunk | None:
    """The top-level statements around ``offset`` (to ``end``) without an outline: read
    from the lines' indentation, parsed alone. For a code action asked before the
    document's first outline is made, or where it changed since: it must not wait for
    the whole module to be parsed. None when the guess does not parse, or when the
    statements are longer than ``GUESS_CHARS``."""
    last = offset if end is None else max(offset, end)
    start = text.rfind("\n", 0, offset) + 1
    while start > 0 and (not _STATEMENT_START.match(text, start) or _decorated(text, start)):
        if offset - start > GUESS_CHARS:
            return None
        start = text.rfind("\n", 0, start - 1) + 1
    line_end = text.find("\n", last)
    after = None
    while line_end >= 0:
        after = _STATEMENT_START.search(text, line_end + 1, start + GUESS_CHARS + 1)
        if after is None or not _decorated(text, after.start()):
            break
        line_end = text.find("\n", after.start())
        after = None
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
# The server decodes a long module's outline on a thread that holds the interpreter lock for
# as long as one C call runs: JSON lists of tens of thousands of numbers and names held it
# for 20-35 ms, delaying code actions (issue 15). Offsets travel as one base64 string of
# 32-bit integers and names as one newline-separated string, a few milliseconds to decode.
_NAMES_SEPARATOR = "\n"  # no name has one


def _offsets_to_wire(offsets: Iterable[int]) -> str:
    return base64.b64encode(array.array("i", offsets).tobytes()).decode("ascii")


def _offsets_from_wire(data: str) -> tuple[int, ...]:
    offsets = array.array("i")
    offsets.frombytes(base64.b64decode(data))
    return tuple(offsets)


def _names_to_wire(names: frozenset[str]) -> str:
    return _NAMES_SEPARATOR.join(sorted(names))


def _names_from_wire(data: str) -> frozenset[str]:
    return frozenset(data.split(_NAMES_SEPARATOR)) if data else frozenset()


def outline_to_wire(outline: Outline | None) -> dict[str, Any] | None:
    if outline is None:
        return None
    facts = outline.facts
    return {
        "starts": _offsets_to_wire(outline.starts),
        "ends": _offsets_to_wire(outline.ends),
        "stored": _names_to_wire(facts.stored),
        "functions": _names_to_wire(facts.functions),
        "classes": _names_to_wire(facts.classes),
        "imports": [[i.is_from, i.module, i.level, i.names] for i in facts.imports],
        "members": [
            [
                c.start,
                c.end,
                c.body,
                _offsets_to_wire(c.starts),
                _offsets_to_wire(c.ends),
                to_wire(c.fields),
            ]
            for c in outline.classes
        ],
    }


def outline_from_wire(data: dict[str, Any] | None) -> Outline | None:
    if data is None:
        return None
    imports = tuple(
        ImportFact(bool(is_from), module, int(level), tuple((n, a) for n, a in names))
        for is_from, module, level, names in data["imports"]
    )
    facts = ModuleFacts(
        _names_from_wire(data["stored"]),
        _names_from_wire(data["functions"]),
        _names_from_wire(data["classes"]),
        imports,
    )
    classes = tuple(
        ClassOutline(
            int(start),
            int(end),
            int(body),
            _offsets_from_wire(starts),
            _offsets_from_wire(ends),
            from_wire(fields),
        )
        for start, end, body, starts, ends, fields in data.get("members", ())
    )
    return Outline(
        _offsets_from_wire(data["starts"]), _offsets_from_wire(data["ends"]), facts, classes
    )
