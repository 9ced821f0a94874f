"""The analysis's ``walk`` hands out exactly ``ast.walk``'s nodes in ``ast.walk``'s order,
on real code (a sample of the standard library) and on a tree changed while it is walked."""

from __future__ import annotations

import ast
import sys
import sysconfig
from pathlib import Path

from lsp_server.rts.ast_walk import statements, walk


def test_the_same_nodes_in_the_same_order_on_standard_library_modules() -> None:
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:20]
    assert len(stdlib) == 20
    for path in stdlib:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        assert list(map(id, walk(tree))) == list(map(id, ast.walk(tree))), path


def test_children_are_read_when_their_parent_is_reached() -> None:
    tree = ast.parse("def f():\n    return 1\n\nx = 2\n")
    replacement = ast.parse("y = 3").body
    seen = []
    for node in walk(tree):
        seen.append(type(node).__name__)
        if isinstance(node, ast.FunctionDef):
            node.body = replacement  # as the import-time digest swaps bodies out
    expected = []
    tree = ast.parse("def f():\n    return 1\n\nx = 2\n")
    for node in ast.walk(tree):
        expected.append(type(node).__name__)
        if isinstance(node, ast.FunctionDef):
            node.body = ast.parse("y = 3").body
    assert seen == expected


def test_statements_are_walks_statements_in_its_order() -> None:
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:40]
    # ``except*`` is 3.11 syntax: a plain ``except`` on 3.10 walks the same way.
    handler = "except*" if sys.version_info >= (3, 11) else "except"
    source = (
        f"try:\n    import a\n{handler} E:\n    import b\nmatch x:\n    case 1:\n        import c\n"
    )
    trees = [ast.parse(source)]
    trees += [ast.parse(p.read_text(encoding="utf-8", errors="replace")) for p in stdlib]
    for tree in trees:
        expected = [id(n) for n in ast.walk(tree) if isinstance(n, ast.stmt)]
        assert [id(n) for n in statements(tree) if isinstance(n, ast.stmt)] == expected
    assert [n.names[0].name for n in statements(trees[0]) if isinstance(n, ast.Import)] == [
        "a",
        "b",
        "c",
    ]
