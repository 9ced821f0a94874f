"""Oracles: is a refactored program still right?

Each oracle looks at the program before and after one engine's refactoring and returns a
``Finding`` when it sees a fault. Cheap static oracles run first; the run-and-compare
oracle (the strongest: generated programs print everything observable) runs the result.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections import Counter
from dataclasses import dataclass

from lsp_server.project.text import line_starts, offset_of

CRASH = "crash"
DOES_NOT_COMPILE = "does-not-compile"
UNDEFINED_NAME = "undefined-name"
OUTPUT_CHANGED = "output-changed"
STRUCTURAL = "structural"
INVERSE = "inverse"
DIFFERENTIAL = "differential"
REFUSAL = "refusal"
"""A program built to violate a precondition was refactored anyway, and broken."""
INVALID_PROGRAM = "invalid-program"
"""A generator bug: the original program does not run cleanly."""

ORACLES = (
    CRASH,
    DOES_NOT_COMPILE,
    UNDEFINED_NAME,
    OUTPUT_CHANGED,
    STRUCTURAL,
    INVERSE,
    DIFFERENTIAL,
    REFUSAL,
    INVALID_PROGRAM,
)


@dataclass(frozen=True)
class Finding:
    oracle: str
    detail: str


def compile_error(files: dict[str, str], unchanged: dict[str, str] | None = None) -> Finding | None:
    """The first Python file that does not compile (files whose text is the same in
    ``unchanged``, which compiled before, are skipped)."""
    for path in sorted(files):
        if not path.endswith(".py"):
            continue
        if unchanged is not None and unchanged.get(path) == files[path]:
            continue
        try:
            compile(files[path], path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None)
            return Finding(DOES_NOT_COMPILE, f"{path}:{line}: {type(exc).__name__}: {exc}")
    return None


def undefined_per_file(files: dict[str, str]) -> dict[str, Counter[str]]:
    return {path: undefined_names({path: text}) for path, text in files.items()}


def undefined_names(files: dict[str, str]) -> Counter[str]:
    """Names pyflakes reports as undefined, with how often."""
    from pyflakes import checker, messages

    kinds = (messages.UndefinedName, messages.UndefinedLocal, messages.UndefinedExport)
    names: Counter[str] = Counter()
    for path, text in files.items():
        if not path.endswith(".py"):
            continue
        try:
            tree = ast.parse(text, path)
        except SyntaxError:
            continue
        for message in checker.Checker(tree, filename=path).messages:
            if isinstance(message, kinds):
                names[str(message.message_args[0])] += 1
    return names


def new_undefined_names(
    before: dict[str, Counter[str]], original: dict[str, str], after: dict[str, str]
) -> Finding | None:
    """Names pyflakes reports undefined after the refactoring and not before. ``before``
    holds the original program's names per file; unchanged files are not checked again."""
    now: Counter[str] = Counter()
    for path, text in after.items():
        if original.get(path) == text:
            now += before.get(path, Counter())
        else:
            now += undefined_names({path: text})
    new = now - sum(before.values(), Counter())
    if not new:
        return None
    return Finding(UNDEFINED_NAME, "undefined: " + ", ".join(sorted(new)))


def normalized(text: str) -> str:
    """The AST without positions: formatting, comments and blank lines do not count."""
    return ast.dump(ast.parse(text))


def _identifiers(tree: ast.AST) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        for name in ("id", "attr", "arg", "name", "asname", "module"):
            value = getattr(node, name, None)
            if isinstance(value, str):
                out.append((line, value))
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append((line, repr(node.value)))
    return out


def structural(expected: dict[str, str], after: dict[str, str]) -> Finding | None:
    """Every occurrence the generator marked as the target renamed, nothing else: the result
    equals the expected program up to layout."""
    for path in sorted(expected):
        if path not in after:
            return Finding(STRUCTURAL, f"{path} disappeared")
        if after[path] == expected[path]:
            continue
        try:
            got_tree = ast.parse(after[path])
        except SyntaxError:
            return None  # the compile oracle reports it
        want_tree = ast.parse(expected[path])
        if ast.dump(got_tree) == ast.dump(want_tree):
            continue
        got, want = _identifiers(got_tree), _identifiers(want_tree)
        for (line, name), (_, wanted) in zip(got, want, strict=False):
            if name != wanted:
                return Finding(STRUCTURAL, f"{path}:{line}: `{name}` where `{wanted}` expected")
        return Finding(STRUCTURAL, f"{path}: structure differs from the expected rename")
    return None


def same_program(original: dict[str, str], restored: dict[str, str]) -> Finding | None:
    """The inverse oracle's comparison: the same files with the same normalized ASTs."""
    if sorted(original) != sorted(restored):
        return Finding(INVERSE, f"files differ: {sorted(original)} -> {sorted(restored)}")
    for path in sorted(original):
        if not path.endswith(".py") or original[path] == restored[path]:
            continue
        try:
            if normalized(original[path]) != normalized(restored[path]):
                return Finding(INVERSE, f"{path} is not restored by the inverse rename")
        except SyntaxError:
            return Finding(INVERSE, f"{path} does not parse after the inverse rename")
    return None


def corresponding_offset(before: str, after: str, offset: int) -> int | None:
    """Where the token at ``offset`` of ``before`` is in ``after``, for a rename (which
    changes token strings, never their number); None when the streams do not line up."""

    def tokens(text: str) -> list[tokenize.TokenInfo]:
        return [
            t
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.NL, tokenize.COMMENT)
        ]

    try:
        old, new = tokens(before), tokens(after)
    except (tokenize.TokenError, SyntaxError):
        return None
    if len(old) != len(new):
        return None
    starts = line_starts(before)
    for index, token in enumerate(old):
        begin = offset_of(starts, *token.start)
        end = offset_of(starts, *token.end)
        if begin <= offset < end and token.type == tokenize.NAME:
            moved = new[index]
            return offset_of(line_starts(after), *moved.start)
    return None
