"""Units of code whose checksums the dependency store tracks, and their checksums.

A unit is a top-level function or method (any ``def`` not nested in another ``def``),
or the module part of a Python file (everything outside those function bodies: imports,
constants, class bodies, decorators and ``def`` headers), or a whole non-Python file.

Nested functions, lambdas and comprehensions belong to the unit that encloses them: the
enclosing unit's checksum covers their text, so a change in them is a change of that unit.
Decorators and ``def`` headers are counted in the module part as well as in the function,
because they run at import time (a changed decorator can change behaviour without the
function body ever running).

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

import xxhash

MODULE = "<module>"
"""Name of the module-part unit of a Python file."""

FILE = "<file>"
"""Name of the unit that stands for a whole non-Python file."""

_LOCALS = ".<locals>"


@dataclass(frozen=True, order=True)
class Unit:
    """A tracked piece of code: ``path`` is POSIX and relative to the project root."""

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


@dataclass
class FileUnits:
    """The units of one Python file with their checksums."""

    path: str
    checksums: dict[str, str] = field(default_factory=dict)
    spans: dict[str, UnitSpan] = field(default_factory=dict)

    def units(self) -> Iterator[Unit]:
        for name in self.checksums:
            yield Unit(self.path, name)

    def unit_for_qualname(self, qualname: str) -> Unit:
        """Map a code object's ``co_qualname`` to the unit that contains it."""
        outer = qualname.split(_LOCALS, 1)[0]
        if outer in self.spans:
            return Unit(self.path, outer)
        return Unit(self.path, MODULE)

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
        """The unit whose text contains ``line`` (for Pythons without ``co_qualname``)."""
        for span in self.spans.values():
            if span.first_line <= line <= span.last_line:
                return Unit(self.path, span.name)
        return Unit(self.path, MODULE)


def _function_spans(tree: ast.Module) -> list[UnitSpan]:
    spans: list[UnitSpan] = []

    def visit(body: Iterable[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                head = node.body[0]
                tail = node.body[-1]
                spans.append(
                    UnitSpan(
                        name=prefix + node.name,
                        first_line=first,
                        last_line=node.end_lineno or node.lineno,
                        def_line=node.lineno,
                        body_start=(head.lineno, head.col_offset),
                        body_end=(tail.end_lineno or tail.lineno, tail.end_col_offset or 0),
                    )
                )
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.While)):
                # Definitions under `if TYPE_CHECKING:` / `try: ... except ImportError:` are
                # still top-level functions of the module.
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.ExceptHandler):
                        visit(child.body, prefix)
                visit(getattr(node, "body", []), prefix)
                visit(getattr(node, "orelse", []), prefix)
                visit(getattr(node, "finalbody", []), prefix)

    visit(tree.body, "")
    return spans


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


def source_units(path: str, source: str) -> FileUnits:
    """Units and checksums of a Python source text; raises ``SourceError`` if it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        raise SourceError(f"{path}: {exc}") from exc
    tokens = _normalized_tokens(source)
    spans = _function_spans(tree)
    result = FileUnits(path=path)
    module_texts: list[str] = []
    body_ranges = sorted((s.body_start, s.body_end) for s in spans)
    ri = 0
    in_body_marked = False
    for pos, text in tokens:
        while ri < len(body_ranges) and pos >= body_ranges[ri][1]:
            ri += 1
            in_body_marked = False
        if ri < len(body_ranges) and body_ranges[ri][0] <= pos < body_ranges[ri][1]:
            if not in_body_marked:
                module_texts.append("<body>")
                in_body_marked = True
            continue
        module_texts.append(text)
    result.checksums[MODULE] = _digest(module_texts)
    # Tokens are in position order: slice each span by bisection instead of scanning every
    # token per function (quadratic on large modules).
    positions = [pos for pos, _ in tokens]
    for span in spans:
        lo = bisect.bisect_left(positions, (span.first_line, 0))
        hi = bisect.bisect_left(positions, span.body_end)
        texts = [text for _, text in tokens[lo:hi]]
        result.checksums[span.name] = _digest(texts)
        result.spans[span.name] = span
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
