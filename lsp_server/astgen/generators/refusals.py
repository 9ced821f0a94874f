"""Programs that violate a refactoring's precondition: the right answer is a refusal, and
any result that breaks the program fails the refusal oracle."""

from __future__ import annotations

from lsp_server.astgen.gen import Gen, choice
from lsp_server.astgen.program import MAIN, Case, cursor_case, rename_case, selection_case

_WORK = "def work(n):\n    acc = 0\n{body}\n    return acc\n\n\nprint(work(4))\n"
_LOOP = "    for i in range(n):\n        acc += i\n    acc *= 2"
_GENERATOR = "def work(n):\n    for i in range(n):\n        yield i\n\n\nprint(list(work(3)))\n"
_TWICE = "def work(n):\n    ‸y = n\n    y = y + 1\n    print(y)\n\n\nwork(2)\n"
_NAMED = "def work(n):\n    «@y» = n + 1\n    z = 2\n    print(«y», z)\n\n\nwork(2)\n"
_NESTED = (
    "def outer():\n    def ‸inner():\n        return 1\n\n    return inner()\n\n\nprint(outer())\n"
)
_METHOD = (("name", "ext"),)
_VARIABLE = (("name", "v"),)


def _select(text: str, start: str, end: str) -> str:
    """``text`` with the selection from ``start`` to the end of the next ``end``."""
    a = text.index(start)
    b = text.index(end, a) + len(end)
    return text[:a] + "⟦" + text[a:b] + "⟧" + text[b:]


def _selection(text: str, start: str, end: str, kind: str) -> Case:
    args = _METHOD if kind == "extract-method" else _VARIABLE
    return selection_case({MAIN: _select(text, start, end)}, kind, args, "refusals", True)


def _cases() -> list[tuple[str, Case]]:
    loop = _WORK.format(body=_LOOP)
    found = [
        ("partial-statement", _selection(loop, "= 0", "= 0", "extract-method")),
        ("across-blocks", _selection(loop, "acc += i", "acc *= 2", "extract-method")),
        ("yield", _selection(_GENERATOR, "yield i", "yield i", "extract-method")),
        ("assignment-target", _selection(loop, "acc", "acc", "extract-variable")),
        ("not-an-expression", _selection(loop, "acc *=", "*= 2", "extract-variable")),
        ("assigned-twice", cursor_case({MAIN: _TWICE}, "inline", (), "refusals", True)),
    ]
    for violation, new_name in (("keyword", "class"), ("not-identifier", "1x"), ("clash", "z")):
        case = rename_case({MAIN: _NAMED}, new_name, "refusals", expect_refusal=True)
        found.append((f"rename-to-{violation}", case))
    files = {MAIN: _NESTED, "other.py": ""}
    move = cursor_case(files, "move", (("destination", "other.py"),), "refusals", True)
    found.append(("move-local-function", move))
    return found


def generate(bound: int) -> Gen[Case]:
    """A fixed list of precondition violations (``bound`` does not change it)."""
    return choice("violation", _cases())
