"""Units of code whose checksums the dependency store tracks, and their checksums.

A unit is a function or method (any ``def``, nested ones included, named by its
``__qualname__``: ``f.<locals>.g``), or the module part of a Python file (everything
outside function bodies: imports, constants, class bodies, decorators and ``def``
headers), or a whole non-Python file.

A function's text leaves out the bodies of the functions defined in it, as the module part
leaves out every top-level body: a test that calls ``f`` but never the ``g`` that ``f``
defines does not depend on ``g``'s body. Running ``g`` makes a test depend on ``f`` as well
(``enclosing``): what ``f`` computes before defining ``g`` (a closure's variables, the
wrapper a decorator factory returns) shapes what ``g`` does, and may have run long before
the test, at import. Lambdas and comprehensions belong to the function around them.

Decorators and ``def`` headers are counted in the enclosing part as well as in the function,
because they run when the ``def`` statement does (a changed decorator can change behaviour
without the function body ever running). A name defined twice in one scope (``if``/``else``
variants) is one unit whose checksum covers every definition.

Checksums are xxhash over a normalized token stream: comments, blank lines, line
continuations and indentation width do not count, so formatting-only edits change nothing.
"""

from __future__ import annotations

import ast
import bisect
import functools
import io
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType
from typing import NamedTuple

import xxhash

from lsp_server.project.text import parse_python

MODULE = "<module>"
"""Name of the module-part unit of a Python file."""

FILE = "<file>"
"""Name of the unit that stands for a whole non-Python file."""

_LOCALS = "<locals>"


class Unit(NamedTuple):
    """A tracked piece of code: ``path`` is POSIX and relative to the project root.

    A named tuple rather than a dataclass: the recorder hashes units by the hundred per
    test, and a tuple hashes in C."""

    path: str
    name: str

    @property
    def is_module(self) -> bool:
        return self.name == MODULE

    @property
    def is_file(self) -> bool:
        return self.name == FILE

    def __str__(self) -> str:
        if self.name in (MODULE, FILE):
            return self.path
        return f"{self.path}::{self.name}"


class SourceError(ValueError):
    """The source of a Python file cannot be tokenized or parsed."""


@dataclass(frozen=True)
class UnitSpan:
    """Where a function unit sits in its file (1-based lines, inclusive)."""

    name: str
    first_line: int  # first decorator, or the ``def`` line
    last_line: int
    def_line: int
    body_start: tuple[int, int]
    body_end: tuple[int, int]
    parent: str | None = None
    """The function unit this one is defined in (None: defined at module or class level)."""


@dataclass(frozen=True)
class ImportStatement:
    """An ``import`` statement anywhere in a file (also inside functions and ``try``)."""

    names: tuple[str, ...]
    """``import a.b`` -> ``("a.b",)``; ``from m import x, y`` -> ``("x", "y")``."""
    module: str | None = None
    """``from <module> import ...``; None for ``import ...`` and ``from . import ...``."""
    level: int = 0
    """Leading dots of a relative import."""
    is_from: bool = False


@dataclass
class FileUnits:
    """The units of one Python file with their checksums."""

    path: str
    checksums: dict[str, str] = field(default_factory=dict)
    spans: dict[str, UnitSpan] = field(default_factory=dict)
    """The first definition of each function unit."""
    definitions: list[UnitSpan] = field(default_factory=list)
    """Every ``def`` in source order, redefinitions included."""
    imports: list[ImportStatement] = field(default_factory=list)
    """Every import statement (the file's static import closure starts here)."""

    def units(self) -> Iterator[Unit]:
        for name in self.checksums:
            yield Unit(self.path, name)

    def unit_for_qualname(self, qualname: str) -> Unit:
        """The innermost function unit holding the code of ``co_qualname`` (the module part
        for module-level and class-body code)."""
        spans = self.spans
        while True:
            if qualname in spans:
                return Unit(self.path, qualname)
            head, dot, _ = qualname.rpartition(".")
            if not dot:
                return Unit(self.path, MODULE)
            qualname = head[: -len(_LOCALS) - 1] if head.endswith(_LOCALS) else head

    def unit_for_code(self, code: CodeType) -> Unit:
        """The unit a code object of this file belongs to: by ``co_qualname`` (3.11+), else
        by name and first line. A module's code object starts at line 1, which may be
        inside a function's span when the file opens with a ``def``: never a function."""
        qualname = getattr(code, "co_qualname", None)
        if qualname is not None:
            return self.unit_for_qualname(qualname)
        if code.co_name == "<module>":
            return Unit(self.path, MODULE)
        return self.unit_at_line(code.co_firstlineno)

    def unit_at_line(self, line: int) -> Unit:
        """The innermost function unit whose text contains ``line`` (for Pythons without
        ``co_qualname``); the module part outside every function."""
        best: UnitSpan | None = None
        for span in self.definitions:
            inside = span.first_line <= line <= span.last_line
            if inside and (best is None or span.first_line >= best.first_line):
                best = span
        return Unit(self.path, MODULE if best is None else best.name)

    def enclosing(self, unit: Unit) -> tuple[Unit, ...]:
        """The function units ``unit`` is defined in, innermost first."""
        out: list[Unit] = []
        span = self.spans.get(unit.name)
        while span is not None and span.parent is not None:
            out.append(Unit(self.path, span.parent))
            span = self.spans.get(span.parent)
        return tuple(out)


_FuncDef = (ast.FunctionDef, ast.AsyncFunctionDef)


def nested_statements(node: ast.AST) -> Iterator[ast.stmt]:
    """Statements directly inside a compound statement (``if``, ``try``, ``match``, ``def``,
    ``class``...), except handlers and match cases looked through."""
    for name in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, name, ()):
            if isinstance(child, ast.stmt):
                yield child
            else:  # an except handler or a match case
                yield from child.body


def _scan(tree: ast.Module) -> tuple[list[UnitSpan], list[ImportStatement]]:
    """Every function's span and every import statement, in one walk over statements
    (expressions hold neither)."""
    spans: list[UnitSpan] = []
    imports: list[ImportStatement] = []

    def visit(body: Iterable[ast.stmt], prefix: str, parent: str | None) -> None:
        for node in body:
            if isinstance(node, _FuncDef):
                name = prefix + node.name
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                head = node.body[0]
                tail = node.body[-1]
                spans.append(
                    UnitSpan(
                        name=name,
                        first_line=first,
                        last_line=node.end_lineno or node.lineno,
                        def_line=node.lineno,
                        body_start=(head.lineno, head.col_offset),
                        body_end=(tail.end_lineno or tail.lineno, tail.end_col_offset or 0),
                        parent=parent,
                    )
                )
                visit(node.body, f"{name}.{_LOCALS}.", name)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.", parent)
            elif isinstance(node, ast.Import):
                imports.append(ImportStatement(tuple(a.name for a in node.names)))
            elif isinstance(node, ast.ImportFrom):
                names = tuple(a.name for a in node.names)
                imports.append(ImportStatement(names, node.module, node.level, is_from=True))
            else:
                # Definitions under `if TYPE_CHECKING:` / `try: ... except ImportError:` are
                # in the scope around the compound statement.
                visit(nested_statements(node), prefix, parent)

    visit(tree.body, "", None)
    return spans, imports


def _normalized_tokens(source: str) -> list[tuple[tuple[int, int], str]]:
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
    out: list[tuple[tuple[int, int], str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in skip:
                continue
            if tok.type == tokenize.INDENT:
                text = "<indent>"
            elif tok.type == tokenize.DEDENT:
                text = "<dedent>"
            elif tok.type == tokenize.NEWLINE:
                text = "<newline>"
            else:
                text = tok.string
            out.append((tok.start, text))
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        raise SourceError(str(exc)) from exc
    return out


def _digest(texts: Iterable[str]) -> str:
    # Same digest as feeding each text followed by NUL to a streaming hasher, in one call.
    data = "".join(text + "\x00" for text in texts)
    return xxhash.xxh3_64_hexdigest(data.encode("utf-8", "surrogatepass"))


class _TokenText:
    """The normalized tokens of a file, sliced by position. Tokens are in position order:
    slices are found by bisection instead of scanning every token per function (quadratic
    on large modules)."""

    def __init__(self, tokens: list[tuple[tuple[int, int], str]]) -> None:
        self.positions = [pos for pos, _ in tokens]
        self.texts = [text for _, text in tokens]

    def between(
        self, start: tuple[int, int], end: tuple[int, int], holes: Iterable[UnitSpan]
    ) -> list[str]:
        """Tokens from ``start`` to ``end``, each hole's body replaced by a marker."""
        positions, texts = self.positions, self.texts
        lo = bisect.bisect_left(positions, start)
        out: list[str] = []
        for hole in holes:
            out.extend(texts[lo : bisect.bisect_left(positions, hole.body_start)])
            out.append("<body>")
            lo = bisect.bisect_left(positions, hole.body_end)
        out.extend(texts[lo : bisect.bisect_left(positions, end)])
        return out


def source_units(path: str, source: str) -> FileUnits:
    """Units and checksums of a Python source text; raises ``SourceError`` if it does not parse."""
    try:
        tree = parse_python(source, path)
    except (SyntaxError, ValueError) as exc:
        raise SourceError(f"{path}: {exc}") from exc
    text = _TokenText(_normalized_tokens(source))
    spans, imports = _scan(tree)
    children: dict[str | None, list[UnitSpan]] = {}
    for span in spans:
        children.setdefault(span.parent, []).append(span)
    result = FileUnits(path=path, definitions=spans, imports=imports)
    end = (len(source.splitlines()) + 2, 0)
    result.checksums[MODULE] = _digest(text.between((0, 0), end, children.get(None, ())))
    variants: dict[str, list[str]] = {}
    for span in spans:
        # Children by name may include those of a same-named redefinition elsewhere.
        holes = [
            child
            for child in children.get(span.name, ())
            if span.first_line <= child.first_line <= span.last_line
        ]
        own = text.between((span.first_line, 0), span.body_end, holes)
        variants.setdefault(span.name, []).extend(own)
        result.spans.setdefault(span.name, span)
    for name, texts in variants.items():
        result.checksums[name] = _digest(texts)
    return result


@functools.lru_cache(maxsize=256)
def cached_source_units(path: str, source: str) -> FileUnits:
    """``source_units`` memoized by text. A refactoring's files are parsed by the engine
    (to build its Provenance) and again by the REKS rules moments later, and most files are
    unchanged between two tasks. The result is shared: callers must not modify it."""
    return source_units(path, source)


def file_checksum(data: bytes) -> str:
    """Checksum of a non-Python file: its bytes, unnormalized."""
    return xxhash.xxh3_64_hexdigest(data)


def path_units(root: Path, file: Path) -> FileUnits:
    """Units of a file on disk; ``file`` may be absolute or relative to ``root``."""
    absolute = file if file.is_absolute() else root / file
    rel = absolute.relative_to(root).as_posix() if absolute.is_absolute() else absolute.as_posix()
    if absolute.suffix in (".py", ".pyw"):
        data = absolute.read_bytes()
        try:
            source = tokenize_decode(data)
        except (SyntaxError, UnicodeDecodeError) as exc:
            raise SourceError(f"{rel}: {exc}") from exc
        return source_units(rel, source)
    units = FileUnits(path=rel)
    units.checksums[FILE] = file_checksum(absolute.read_bytes())
    return units


def tokenize_decode(data: bytes) -> str:
    """Decode Python source bytes honouring a PEP 263 coding cookie."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)
