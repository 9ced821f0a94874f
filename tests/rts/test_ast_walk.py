"""The analysis's ``walk`` hands out exactly ``ast.walk``'s nodes in ``ast.walk``'s order,
on real code (a sample of the standard library) and on a tree changed while it is walked;
``scope_nodes`` the nodes of one scope, and ``copy_tree`` what ``copy.deepcopy`` makes."""

from __future__ import annotations

import ast
import copy
import sys
import sysconfig
from pathlib import Path

from lsp_server.rts.ast_walk import (
    copy_tree,
    scope_nodes,
    shared_walks,
    statements,
    unshared,
    walk,
)


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


def _stdlib_trees(count: int) -> list[ast.Module]:
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:count]
    assert len(stdlib) == count
    return [ast.parse(p.read_text(encoding="utf-8", errors="replace")) for p in stdlib]


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def test_scope_nodes_are_a_functions_own_nodes() -> None:
    source = (
        "def f(x):\n"
        "    def inner():\n"
        "        return 1\n"
        "    g = lambda: 2\n"
        "    class C:\n"
        "        y = 3\n"
        "    return [v for v in x if v]\n"
    )
    trees = [ast.parse(source), *_stdlib_trees(20)]
    for tree in trees:
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            expected = []
            stack = [n for n in function.body if not isinstance(n, _SCOPES)]
            while stack:
                node = stack.pop()
                expected.append(node)
                stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, _SCOPES))
            assert list(scope_nodes(function.body, _SCOPES)) == expected
    outer = trees[0].body[0]
    assert isinstance(outer, ast.FunctionDef)
    own = [type(n).__name__ for n in scope_nodes(outer.body, _SCOPES)]
    assert "Return" in own and "Constant" not in own  # 1, 2 and 3 are in nested scopes


def test_copy_tree_makes_what_deepcopy_makes() -> None:
    for tree in _stdlib_trees(20):
        copied = copy_tree(tree)
        assert ast.dump(copied, include_attributes=True) == ast.dump(
            copy.deepcopy(tree), include_attributes=True
        )
        originals = {id(n) for n in ast.walk(tree) if not isinstance(n, ast.expr_context)}
        assert not originals & {id(n) for n in ast.walk(copied)}  # every node is new
        code, expected = compile(copied, "m", "exec"), compile(tree, "m", "exec")
        assert code.co_code == expected.co_code


def test_shared_walks_hand_out_ast_walks_nodes_each_time() -> None:
    """While a file is analysed, rules walking the same tree or statement again get the
    nodes the first complete walk saw: the same ones, in the same order, as ``ast.walk``
    (a walk left early keeps nothing)."""
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:8]
    for path in stdlib:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        with shared_walks():
            for root in [tree, *tree.body, tree]:
                expected = list(map(id, ast.walk(root)))
                next(iter(walk(root)))  # left after one node
                assert list(map(id, walk(root))) == expected, path
                assert list(map(id, walk(root))) == expected, path


def test_a_tree_changed_while_shared_is_walked_as_it_is_now() -> None:
    """The analysis changes a class statement in place and back (``rts.class_frames``,
    ``rts.import_digest``) inside ``unshared``: walks there see the changed tree, walks
    after see the restored one, and a walk under way meanwhile keeps nothing."""
    tree = ast.parse("class C(Base, Other):\n    def f(self):\n        return 1\n")
    (cls,) = tree.body
    assert isinstance(cls, ast.ClassDef)
    with shared_walks():
        full = list(map(id, ast.walk(cls)))
        assert list(map(id, walk(cls))) == full
        bases = cls.bases
        with unshared():
            cls.bases = []
            assert list(map(id, walk(cls))) == list(map(id, ast.walk(cls)))
            assert len(list(walk(cls))) < len(full)
            cls.bases = bases
        assert list(map(id, walk(cls))) == full
        under_way = iter(walk(tree))
        next(under_way)
        with unshared():
            cls.body = [ast.Pass()]  # not restored: the tree is this one now
        list(under_way)
        assert list(map(id, walk(tree))) == list(map(id, ast.walk(tree)))
