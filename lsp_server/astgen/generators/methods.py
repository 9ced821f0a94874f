"""Method references, for rename of a method or of its parameter: positional and keyword
arguments, overloads by default arguments, calls through the class, bound-method values,
``getattr`` by name, and decorators (``staticmethod``, ``classmethod``, a ``functools.wraps``
decorator, ``property``)."""

from __future__ import annotations

from lsp_server.astgen.gen import Gen, choice, optional, product, sequences
from lsp_server.astgen.generators.marks import mark
from lsp_server.astgen.program import MAIN, Case, rename_case

_HEADER = """import functools


def deco(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + 100

    return wrapper


class C:
"""

# decoration -> (method definition, how the class calls it with one argument)
_DECORATIONS: dict[str, tuple[str, str]] = {
    "plain": ("    def $m(self, $p, q=2):\n        return $p * 10 + q\n", "C.$m(c, 1)"),
    "staticmethod": (
        "    @staticmethod\n    def $m($p, q=2):\n        return $p * 10 + q\n",
        "C.$m(1)",
    ),
    "classmethod": (
        "    @classmethod\n    def $m(cls, $p, q=2):\n        return $p * 10 + q\n",
        "C.$m(1)",
    ),
    "decorator": (
        "    @deco\n    def $m(self, $p, q=2):\n        return $p * 10 + q\n",
        "C.$m(c, 1)",
    ),
    "property": ("    @property\n    def $m(self):\n        return 42\n", ""),
}

_CALLS: list[tuple[str, str]] = [
    ("positional", "print(c.$m(1))"),
    ("keyword", "print(c.$m($p=1))"),
    ("default-given", "print(c.$m(1, q=3))"),
    ("via-class", "print(VIA)"),
    ("bound-value", "g = c.$m\nprint(g(2))"),
    ("getattr", 'print(getattr(c, "$m")(1))'),
    ("property-read", "print(c.$m)"),
]
_READ = "print(c.$m)"


def _template(decoration: str, calls: tuple[str, ...]) -> str | None:
    definition, via = _DECORATIONS[decoration]
    is_property = decoration == "property"
    if any((c == _READ) != is_property for c in calls):
        return None  # a property is only read; a method is only called
    lines = [c.replace("VIA", via) for c in calls if not (is_property and "VIA" in c)]
    return _HEADER + definition + "\n\nc = C()\n" + "\n".join(lines) + "\n"


def generate(bound: int) -> Gen[Case]:
    """Decoration x multisets of up to ``bound`` call forms x renamed entity x site."""

    def build(parts: tuple[str, tuple[str, ...], str, str | None]) -> Gen[Case]:
        decoration, calls, entity, site = parts
        template = _template(decoration, calls)
        if template is None:
            return optional(None)
        source = mark(template, {"m": "m", "p": "p"}, entity, site)
        if source is None or (site is not None and source.find("«@") < source.find(site)):
            return optional(None)
        return optional(rename_case({MAIN: source}, "renamed", "methods"))

    return product(
        choice("decoration", [(name, name) for name in _DECORATIONS]),
        sequences("call", _CALLS, max(1, bound)),
        choice("renamed", [("method", "m"), ("parameter", "p")]),
        choice("site", [("definition", None), ("use", "\nc = C()")]),
    ).bind(build)
