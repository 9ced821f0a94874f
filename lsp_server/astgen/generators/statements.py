"""Statement sequences for extract method (every contiguous selection of every block) and
their expressions for extract variable: loops with ``break``/``continue``/``return``,
augmented assignment, live-out and dead variables, early returns, ``while`` (with a name
bound in one branch of its body, as in isort)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from lsp_server.astgen.features import features
from lsp_server.astgen.gen import Gen, Labelled, sequences
from lsp_server.astgen.program import MAIN, Case, Program, Target
from lsp_server.project.text import line_starts, offset_of

_STATEMENTS: list[tuple[str, str]] = [
    ("assign", "x = n * 2"),
    ("augassign", "acc += x"),
    ("print", 'print("acc", acc)'),
    ("dead-assign", "y = n + 1"),
    ("loop-break", "for i in range(n):\n    if i == 3:\n        break\n    acc += i"),
    ("loop-continue", "for i in range(n):\n    if i % 2 == 0:\n        continue\n    acc += 1"),
    ("loop-return", "for i in range(n):\n    if i == 4:\n        return -acc\n    acc += i"),
    ("if-return", "if n == 0:\n    return -1"),
    ("if-print", 'if n > 3:\n    print("big")'),
    ("while", "while x < n:\n    x += 2"),
    # isort's shape: a branch of a `while` body binds `k` (and continues); what follows
    # binds it again before reading it, or reads it under the same condition. The first
    # iteration takes the other branch, so `k` is unbound there.
    (
        "while-branch-rebind",
        "while x < n:\n    x += 1\n    if x % 2 == 1:\n        k = x\n        continue\n"
        "    for k in range(x):\n        if k > 2:\n            break\n        acc += k",
    ),
    (
        "while-branch-read",
        "while x < n:\n    x += 1\n    if x % 2 == 1:\n        k = x\n"
        "    if x % 2 == 1:\n        acc += k",
    ),
]


def program_source(statements: tuple[str, ...]) -> str:
    body = "\n".join("    " + line for s in statements for line in s.split("\n"))
    return (
        "def work(n):\n    acc = 0\n    x = 1\n"
        + body
        + "\n    print(acc, x)\n    return acc\n\n\n"
        + "print(work(0))\nprint(work(3))\nprint(work(5))\n"
    )


def _blocks(tree: ast.Module) -> Iterator[tuple[int, list[ast.stmt]]]:
    """Every statement list inside ``work`` with its nesting depth."""
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    todo: list[tuple[int, list[ast.stmt]]] = [(0, function.body)]
    while todo:
        depth, block = todo.pop(0)
        yield depth, block
        for stmt in block:
            for name in ("body", "orelse"):
                inner = getattr(stmt, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    todo.append((depth + 1, inner))


def _semantic(source: str, start: int, end: int) -> tuple[tuple[str, str], ...]:
    """What the selection is, beyond its first and last statement: these labels name the
    cause when failures are grouped (greedy generalisation keeps the labels that matter, and
    tries the syntactic ones first)."""
    found = features("extract-method", source, start, end)
    jumps = sorted(j for j in ("return", "break", "continue") if f"selection:{j}" in found)
    return (
        ("live-out", "yes" if "selection:live-out" in found else "no"),
        ("augmented", "yes" if "selection:augmented-assignment" in found else "no"),
        ("jumps", "+".join(jumps) or "none"),
    )


def _numbered(found: list[Labelled[tuple[int, int]]]) -> Gen[tuple[int, int]]:
    """Add ``("nth", k)``: the k-th span with the same labels, so label vectors stay unique."""
    seen: dict[tuple[tuple[str, str], ...], int] = {}
    out = []
    for item in found:
        k = seen.get(item.labels, 0)
        seen[item.labels] = k + 1
        out.append(Labelled(item.value, (*item.labels, ("nth", str(k)))))
    return Gen(lambda: out)


def _describe(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        return f"{stmt.target.id}+="
    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
        return f"{stmt.targets[0].id}="
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return "call"
    return type(stmt).__name__.lower()


def selections(source: str) -> Gen[tuple[int, int]]:
    """Every contiguous selection of statements, labelled by depth and end statements."""
    tree = ast.parse(source)
    starts = line_starts(source)
    found: list[Labelled[tuple[int, int]]] = []
    for depth, block in _blocks(tree):
        for i in range(len(block)):
            for j in range(i, len(block)):
                first, last = block[i], block[j]
                assert last.end_lineno is not None and last.end_col_offset is not None
                start = offset_of(starts, first.lineno, first.col_offset)
                end = offset_of(starts, last.end_lineno, last.end_col_offset)
                labels: tuple[tuple[str, str], ...] = (
                    ("depth", str(depth)),
                    ("from", _describe(first)),
                    ("to", _describe(last)),
                    *_semantic(source, start, end),
                )
                # Editors select either exactly the statements or whole lines (through the
                # newline); engines handle the two differently.
                found.append(Labelled((start, end), (*labels, ("ends", "statement"))))
                found.append(Labelled((start, end + 1), (*labels, ("ends", "line"))))
    return _numbered(found)


_EXTRACTABLE = (ast.BinOp, ast.Compare, ast.Call, ast.BoolOp)


def expressions(source: str) -> Gen[tuple[int, int]]:
    """Every compound expression in ``work`` (operations, comparisons, calls)."""
    tree = ast.parse(source)
    starts = line_starts(source)
    found: list[Labelled[tuple[int, int]]] = []
    function = tree.body[0]
    parents = {child: node for node in ast.walk(function) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(function):
        if not isinstance(node, _EXTRACTABLE):
            continue
        assert node.end_lineno is not None and node.end_col_offset is not None
        holder: ast.AST = node
        while not isinstance(holder, ast.stmt):
            holder = parents[holder]
        labels = (("expr", type(node).__name__), ("in", _describe(holder)))
        span = (
            offset_of(starts, node.lineno, node.col_offset),
            offset_of(starts, node.end_lineno, node.end_col_offset),
        )
        found.append(Labelled(span, labels))
    return _numbered(found)


def _cases(bound: int, kind: str) -> Gen[Case]:
    name = "ext" if kind == "extract-method" else "extracted"
    pick = selections if kind == "extract-method" else expressions

    def build(statements: tuple[str, ...]) -> Gen[Case]:
        source = program_source(statements)
        program = Program(((MAIN, source),))
        return pick(source).map(
            lambda span: Case(
                program, Target(kind, MAIN, span[0], span[1], (("name", name),)), "statements"
            )
        )

    return sequences("stmt", _STATEMENTS, max(1, bound)).bind(build)


def generate_extract_method(bound: int) -> Gen[Case]:
    """Multisets of up to ``bound`` statements x every contiguous selection."""
    return _cases(bound, "extract-method")


def generate_extract_variable(bound: int) -> Gen[Case]:
    """Multisets of up to ``bound`` statements x every compound expression."""
    return _cases(bound, "extract-variable")
