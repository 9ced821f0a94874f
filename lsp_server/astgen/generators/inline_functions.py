"""Inline a function (at its ``def``) or a parameter's default, in the shapes where pasting
the body into a caller can change what runs: an argument evaluated twice or never,
arguments evaluated in another order, a ``return`` in the middle, recursion, a mutable
default, ``*args``/``**kwargs``, a local of the body that captures a caller's name, a
global the body reads that the caller shadows. Each body meets each call site (module
level, inside a function with locals of its own, inside an expression)."""

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
]
_SITES: list[tuple[str, str]] = [
    ("module", "t = 5\nprint({call})\nprint(t)\n"),
    (
        "function",
        "def work():\n    t = 5\n    K = 1\n    print({call})\n    print(t, K)\n\n\nwork()\n",
    ),
    ("expression", "t = 5\nprint([{call}, t][0] * 2)\n"),
]


def _program(body: tuple[str, str, str], site: str) -> str:
    _, definition, call = body
    return _PRELUDE + definition + "\n\n" + site.format(call=call)


def generate(bound: int) -> Gen[Case]:
    """Every body shape at every call site (``bound`` does not change the list)."""

    def case(parts: tuple[tuple[str, str, str], str]) -> Gen[Case]:
        return optional(cursor_case({MAIN: _program(*parts)}, "inline", (), "inline-functions"))

    bodies = choice("body", [(label, (label, d, c)) for label, d, c in _BODIES])
    return union(product(bodies, choice("site", _SITES)).bind(case))
