"""Inline a local variable (at its definition or at a use) or a function, into uses of
every kind: plain, inside a product (precedence), a loop, a closure, an f-string, a keyword
argument; with the variable's inputs rebound in between or not, or changed in place."""

from __future__ import annotations

from lsp_server.astgen.gen import Gen, choice, optional, product, sequences
from lsp_server.astgen.program import MAIN, Case, cursor_case

_VALUES = [("sum", "n + 1"), ("call", "len(str(n))")]
_BETWEEN = [("none", ""), ("print", 'print("between")'), ("rebind-input", "n = n * 10")]
_USES: list[tuple[str, str]] = [
    ("print", "print(Y)"),
    ("product", "print(Y * 2)"),
    ("loop", "for i in range(2):\n    print(Y + i)"),
    ("closure", "def inner():\n    return Y\n\nprint(inner())"),
    ("fstring", 'print(f"<{Y}>")'),
    ("keyword", "print(dict(k=Y))"),
]
_CALLS: list[tuple[str, str]] = [
    ("positional", "print(h(3))"),
    ("keyword", "print(h(3, b=4))"),
    ("keywords-swapped", "print(h(b=1, a=2))"),
    ("in-expression", "print(h(2) * h(3))"),
]


def _variable(value: str, between: str, uses: tuple[str, ...], site: str) -> str:
    lines = ["def work(n):", f"    Y = {value}"]
    if between:
        lines.append("    " + between)
    for use in uses:
        lines += ["    " + line if line else "" for line in use.split("\n")]
    text = "\n".join(lines) + "\n\n\nwork(3)\n"
    if site == "definition":
        text = text.replace("Y =", "‸Y =", 1)
    else:
        first = text.find("Y", text.find("Y =") + 1)
        text = text[:first] + "‸" + text[first:]
    return text.replace("Y", "y")


_MUTABLE_VALUES = [("item", "a[0]"), ("size", "len(a)"), ("sum", "a + [0]")]
_MUTATIONS = [
    ("append", "a.append(9)"),
    ("sort", "a.sort()"),
    ("store-item", "a[0] = 7"),
    ("passed-to-call", "grow(a)"),
    ("read-only", "print(a.count(3))"),
]


def _mutated(value: str, between: str) -> str:
    """A variable whose value reads a list that a statement changes in place before the use."""
    body = f"    ‸y = {value}\n    {between}\n    print(y)\n"
    grow = "def grow(items):\n    items.insert(0, 5)\n\n\n"
    return f"{grow}def work():\n    a = [3, 1]\n{body}\n\nwork()\n"


def _function(calls: tuple[str, ...]) -> str:
    return "def ‸h(a, b=2):\n    return a * b + 1\n\n\n" + "\n".join(calls) + "\n"


def generate(bound: int) -> Gen[Case]:
    """Variables: value x what comes between x multisets of up to ``bound`` uses x site;
    functions: multisets of up to ``bound + 1`` call forms."""

    def variable(parts: tuple[str, str, tuple[str, ...], str]) -> Gen[Case]:
        return optional(cursor_case({MAIN: _variable(*parts)}, "inline", (), "inline"))

    def function(calls: tuple[str, ...]) -> Gen[Case]:
        return optional(cursor_case({MAIN: _function(calls)}, "inline", (), "inline"))

    variables = product(
        choice("value", _VALUES),
        choice("between", _BETWEEN),
        sequences("use", _USES, max(1, bound)),
        choice("site", [("definition", "definition"), ("use", "use")]),
    ).bind(variable)
    mutated = product(choice("value", _MUTABLE_VALUES), choice("mutation", _MUTATIONS)).bind(
        lambda parts: optional(cursor_case({MAIN: _mutated(*parts)}, "inline", (), "inline"))
    )
    functions = sequences("call", _CALLS, max(1, bound) + 1, repeat=False).bind(function)
    from lsp_server.astgen.gen import union

    return union(
        choice("inlined", [("variable", None)]).bind(lambda _: variables),
        choice("inlined", [("function", None)]).bind(lambda _: functions),
        choice("inlined", [("mutated-variable", None)]).bind(lambda _: mutated),
    )
