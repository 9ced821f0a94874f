"""The per-file analysis skips work it can tell is not needed, with the same answers: the
statements alone for ``del`` (``from_imports.top_level_names``), no walk of a module that
never spells ``__all__`` (``bound_names.listed_names``), and no set of a function whose
code holds no possible lookup by string (``lookups.looks_up_by_string``)."""

from __future__ import annotations

import ast
import sysconfig
import textwrap
from pathlib import Path

from lsp_server.rts.bound_names import listed_names
from lsp_server.rts.from_imports import top_level_names
from lsp_server.rts.lookups import looks_up_by_string


def _stdlib_sources() -> list[str]:
    paths = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:60]
    return [path.read_text(encoding="utf-8", errors="replace") for path in paths]


def test_listed_names_given_the_source_agree_with_the_full_walk() -> None:
    sources = _stdlib_sources()
    assert any("__all__" not in source for source in sources)
    for source in sources:
        tree = ast.parse(source)
        assert listed_names(tree, source) == listed_names(tree)


def test_a_spelling_of___all___in_other_characters_still_counts() -> None:
    # NFKC makes the fullwidth letter an "a": Python binds ``__all__``.
    source = '__all__ = ["a"]\n__\uff41ll__.append("b")\n'
    assert listed_names(ast.parse(source), source) is None
    plain = "x = 1\n"
    assert listed_names(ast.parse(plain), plain) == frozenset()


def test_a_name_deleted_in_any_statement_is_not_among_the_top_level_names() -> None:
    tree = ast.parse(
        textwrap.dedent(
            """
            a = b = c = 1
            if a:
                del a
            def f():
                try:
                    pass
                finally:
                    del b
            """
        )
    )
    assert top_level_names(tree) == frozenset({"c", "f"})


def _function(source: str) -> ast.FunctionDef:
    node = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


def test_only_the_function_whose_own_code_looks_up_by_string_is_dynamic() -> None:
    outer = _function(
        """
        def outer(obj, name):
            # getattr(obj, name) in a comment reads nothing
            obj.globals = 1
            def inner():
                return getattr(obj, name)
            return inner
        """
    )
    assert looks_up_by_string(outer) is None
    inner = outer.body[1]
    assert isinstance(inner, ast.FunctionDef)
    assert looks_up_by_string(inner) == "*"
    constant = _function("def f(obj):\n    return getattr(obj, 'x')\n")
    assert looks_up_by_string(constant) is None
