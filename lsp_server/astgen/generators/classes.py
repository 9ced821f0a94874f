"""Two classes in every relation, for rename: inheritance, overriding (with and without
``super().m(...)``), shadowing a class attribute, nesting, unrelated same-named members,
and the class referenced as an annotation or a default value.

Members of C and D that override one another are one entity (``$cm``): renaming one
renames the whole hierarchy, or programs that call through the base break.
"""

from __future__ import annotations

from lsp_server.astgen.gen import Gen, choice, optional, product
from lsp_server.astgen.generators.marks import mark
from lsp_server.astgen.program import MAIN, Case, rename_case

_C_METHOD = """class $C:
    def $cm(self, p):
        return p + 1

    def run(self):
        return self.$cm(10)
"""
_C_FIELD = """class $C:
    $cm = 1

    def get(self):
        return self.$cm
"""

# relation -> (D for a method member, D for a field member); ``None``: no such program.
_RELATIONS: dict[str, tuple[str, str]] = {
    "inherit": (
        "class D($C):\n    pass\n",
        "class D($C):\n    pass\n",
    ),
    "override": (
        "class D($C):\n    def $cm(self, p):\n        return p * 10\n",
        "class D($C):\n    $cm = 5\n",
    ),
    "override-super": (
        "class D($C):\n    def $cm(self, p):\n        return super().$cm(p) * 2\n",
        "class D($C):\n    def get(self):\n        return super().get() + self.$cm\n",
    ),
    "nested": (
        "    class D:\n        def $dm(self, p):\n            return p - 1\n",
        "    class D:\n        $dm = 3\n",
    ),
    "unrelated": (
        "class D:\n    def $dm(self, p):\n        return p - 1\n",
        "class D:\n    $dm = 3\n\n    def get(self):\n        return self.$dm\n",
    ),
    "annotation": (
        "class D:\n    def make(self, x: $C) -> $C:\n        return x\n",
        "class D:\n    def make(self, x: $C) -> $C:\n        return x\n",
    ),
    "default": (
        "class D:\n    def use(self, k=$C.$cm):\n        return k(D(), 4)\n",
        "class D:\n    def use(self, k=$C.$cm):\n        return k\n",
    ),
}

_USES_METHOD: dict[str, str] = {
    "inherit": "print(D().$cm(2), D().run())",
    "override": "print(D().$cm(2), D().run())",
    "override-super": "print(D().$cm(2), D().run())",
    "nested": "print($C.D().$dm(2))",
    "unrelated": "print(D().$dm(2))",
    "annotation": "print(D().make($C()).$cm(3))",
    "default": "print(D().use())",
}
_USES_FIELD: dict[str, str] = {
    "inherit": "print(D().get(), D.$cm)",
    "override": "print(D().get(), D.$cm, D().$cm)",
    "override-super": "print(D().get())",
    "nested": "print($C.D.$dm, $C.$cm)",
    "unrelated": "print(D().get(), D.$dm)",
    "annotation": "print(D().make($C()).get())",
    "default": "print(D().use())",
}


def _template(member: str, relation: str) -> str:
    d_method, d_field = _RELATIONS[relation]
    if member == "method":
        base, d_class, use = _C_METHOD, d_method, _USES_METHOD[relation]
        first = "print($C().$cm(1), $C().run())"
    else:
        base, d_class, use = _C_FIELD, d_field, _USES_FIELD[relation]
        first = "print($C().get(), $C.$cm)"
    # A nested D continues C's body; any other D follows C.
    body = base + ("\n" if relation == "nested" else "\n\n") + d_class
    return body + "\n\n" + first + "\n" + use + "\n"


_ENTITIES = [("member-of-C", "cm"), ("member-of-D", "dm"), ("class-C", "C")]
_SITES = [("definition", None), ("use", "\nprint(")]


def generate(bound: int) -> Gen[Case]:
    """Member kind x relation x renamed entity x where the rename is invoked (``bound``
    does not change this generator: every relation is always generated)."""

    def build(parts: tuple[str, str, str, str | None]) -> Gen[Case]:
        member, relation, entity, site = parts
        names = {"cm": "m" if member == "method" else "f", "C": "C"}
        names["dm"] = names["cm"]
        source = mark(_template(member, relation), names, entity, site)
        new_name = "K" if entity == "C" else "renamed"
        case = None if source is None else rename_case({MAIN: source}, new_name, "classes")
        return optional(case)

    return product(
        choice("member", [("method", "method"), ("field", "field")]),
        choice("relation", [(name, name) for name in _RELATIONS]),
        choice("renamed", _ENTITIES),
        choice("site", _SITES),
    ).bind(build)
