"""Field/attribute references, for rename: class-level, instance-level or both; read, write,
augmented assignment, ``getattr`` by name, closures, lambdas, comprehensions, ``dict(f=...)``
keywords (a same-named keyword that must stay), f-strings, and untyped parameters."""

from __future__ import annotations

from lsp_server.astgen.gen import Gen, choice, optional, product, sequences
from lsp_server.astgen.program import MAIN, Case, rename_case

NEW_NAME = "fx"

# Method bodies (8-space indent) reading/writing the field; ``None`` = not valid for a level.
_USES: list[tuple[str, str]] = [
    ("read", "return self.«f»"),
    ("class-read", "return C.«f»"),
    ("write", "self.«f» = 7\n        return self.«f»"),
    ("augassign", "self.«f» += 3\n        return self.«f»"),
    ("getattr", 'return getattr(self, "«f»")'),
    ("closure", "def inner():\n            return self.«f»\n\n        return inner()"),
    ("lambda", "get = lambda o: o.«f»\n        return get(self)"),
    ("comprehension", "return [self.«f» + i for i in range(2)]"),
    ("dict-keyword", "return dict(f=self.«f»)"),
    ("fstring", 'return f"<{self.«f»}>"'),
    ("untyped-param", "return peek(self)"),
]

_LEVELS = [("class", "class"), ("instance", "instance"), ("both", "both")]
_SITES = [("definition", "definition"), ("use", "use")]


def _source(level: str, uses: tuple[str, ...], site: str) -> str | None:
    if level == "instance" and any("C.«f»" in u for u in uses):
        return None  # no class attribute to read through the class
    lines = ["class C:"]
    if level in ("class", "both"):
        lines.append("    «f» = 1")
    if level in ("instance", "both"):
        lines += ["    def __init__(self):", "        self.«f» = 2", ""]
    for index, body in enumerate(uses):
        lines += [f"    def use{index}(self):", f"        {body}", ""]
    if any("peek" in u for u in uses):
        lines += ["", "def peek(o):", "    return o.«f»", ""]
    lines += ["", "c = C()"]
    for index in range(len(uses)):
        lines.append(f'print("use{index}", c.use{index}())')
    lines.append("print(c.«f»)")
    text = "\n".join(lines) + "\n"
    if site == "definition":
        at = text.find("«f»")
    else:
        body_start = text.find("def use0")
        at = text.find("«f»", body_start)
        if text[at - 1] == '"':
            return None  # the first use is a string: nothing to put the cursor on
    return text[:at] + "«@f»" + text[at + 3 :]


def generate(bound: int) -> Gen[Case]:
    """Levels x multisets of up to ``bound`` uses x where the rename is invoked."""

    def build(parts: tuple[str, tuple[str, ...], str]) -> Gen[Case]:
        source = _source(*parts)
        return optional(None if source is None else rename_case({MAIN: source}, NEW_NAME, "fields"))

    return product(
        choice("level", _LEVELS), sequences("use", _USES, max(1, bound)), choice("site", _SITES)
    ).bind(build)
