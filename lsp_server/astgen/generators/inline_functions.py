"""Inline a function (at its ``def``) or a parameter's default, in the shapes where pasting
the body into a caller can change what runs: an argument evaluated twice or never,
arguments evaluated in another order, a ``return`` in the middle, recursion, a mutable
default, ``*args``/``**kwargs``, a local of the body that captures a caller's name, a
global the body reads that the caller shadows, a parameter read after the call (in a
lambda, a generator expression or a nested function) while the caller rebinds the
argument's name, an argument name a comprehension of the body captures. Each body meets
each call site (module level, inside a function with locals of its own, inside an
expression); calls through an alias (``from m import h as g``, ``m.h``, ``h2 = h``) come
on their own."""

from __future__ import annotations

from lsp_server.astgen.gen import Gen, choice, optional, product, union
from lsp_server.astgen.program import MAIN, Case, cursor_case

_PRELUDE = 'K = 10\n\n\ndef note(v):\n    print("eval", v)\n    return v\n\n\n'
"""``note`` makes evaluating an argument visible; ``K`` is the global some bodies read."""

_BODIES: list[tuple[str, str, str]] = [
    # (label, definition with the cursor on the name, the call with its arguments)
    ("operand", "def ‸h(a):\n    return a + 1\n", "h(3) * 2"),
    (
        "hoisted",
        'def ‸h(a):\n    print("body")\n    return a + 1\n',
        "note(0) + h(2) * 2",
    ),
    ("twice", "def ‸h(a):\n    return a + a\n", "h(note(2))"),
    ("never", "def ‸h(a):\n    return 1\n", "h(note(2))"),
    ("reordered", "def ‸h(a, b):\n    return b - a\n", "h(note(1), note(5))"),
    ("early-return", "def ‸h(a):\n    if a > 1:\n        return 1\n    return 2\n", "h(3)"),
    (
        "recursive",
        "def ‸h(a):\n    if a < 1:\n        return 1\n    return a * h(a - 1)\n",
        "h(3)",
    ),
    (
        "mutable-default",
        "def ‸h(a, acc=[]):\n    acc.append(a)\n    return len(acc)\n",
        "h(1) + h(2)",
    ),
    ("star-args", "def ‸h(*args):\n    return len(args)\n", "h(1, 2)"),
    ("star-kwargs", "def ‸h(**kw):\n    return sorted(kw)\n", "h(x=1, y=2)"),
    ("captures-local", "def ‸h(a):\n    t = a * 2\n    return t + 1\n", "h(3)"),
    ("reads-global", "def ‸h(a):\n    return a + K\n", "h(2)"),
    ("rebinds-parameter", "def ‸h(a):\n    a = a + 1\n    return a\n", "h(t)"),
    ("default-global", "def h(a, ‸b=K):\n    return a + b\n", "h(1)"),
    ("default-call", "def h(a, ‸b=note(7)):\n    return a + b\n", "h(1) + h(2)"),
    ("default-mutable", "def h(a, ‸b=[]):\n    b.append(a)\n    return len(b)\n", "h(1) + h(2)"),
    # ``(t := 6)`` rebinds the argument's name after the call, before the result is used.
    ("late-lambda", "def ‸h(a):\n    return lambda: a\n", "[h(t), (t := 6)][0]()"),
    (
        "late-generator",
        "def ‸h(a):\n    return (a + i for i in range(2))\n",
        "sum([h(t), (t := 6)][0])",
    ),
    (
        "nested-function",
        "def ‸h(a):\n    def inner():\n        print(a)\n    inner()\n    inner()\n    return 1\n",
        "h(note(2))",
    ),
    ("captures-comprehension", "def ‸h(a):\n    return [a + t for t in range(2)]\n", "h(t)"),
]
_SITES: list[tuple[str, str]] = [
    ("module", "t = 5\nprint({call})\nprint(t)\n"),
    (
        "function",
        "def work():\n    t = 5\n    K = 1\n    print({call})\n    print(t, K)\n\n\nwork()\n",
    ),
    ("expression", "t = 5\nprint([{call}, t][0] * 2)\n"),
]


_DOUBLE = "def ‸h(a):\n    return a + a\n"
_ALIASED: list[tuple[str, dict[str, str]]] = [
    # (label, files): the function is in ``m.py`` or ``main.py``, called through an alias
    ("from-import-as", {"m.py": _PRELUDE + _DOUBLE, MAIN: "from m import h as g\n\nprint(g(2))\n"}),
    (
        "module-attribute",
        {"m.py": _PRELUDE + _DOUBLE, MAIN: "import m\n\nprint(m.h(2), m.h(m.note(3)))\n"},
    ),
    ("module-attribute-plain", {"m.py": _PRELUDE + _DOUBLE, MAIN: "import m\n\nprint(m.h(2))\n"}),
    ("assigned", {MAIN: _PRELUDE + _DOUBLE + "\n\nh2 = h\nprint(h2(note(2)), h(3))\n"}),
]


def _program(body: tuple[str, str, str], site: str) -> str:
    _, definition, call = body
    return _PRELUDE + definition + "\n\n" + site.format(call=call)


def generate(bound: int) -> Gen[Case]:
    """Every body shape at every call site (``bound`` does not change the list)."""

    def case(parts: tuple[tuple[str, str, str], str]) -> Gen[Case]:
        return optional(cursor_case({MAIN: _program(*parts)}, "inline", (), "inline-functions"))

    def aliased(files: dict[str, str]) -> Gen[Case]:
        return optional(cursor_case(files, "inline", (), "inline-functions"))

    bodies = choice("body", [(label, (label, d, c)) for label, d, c in _BODIES])
    return union(
        product(bodies, choice("site", _SITES)).bind(case),
        choice("alias", _ALIASED).bind(aliased),
    )
