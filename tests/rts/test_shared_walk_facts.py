"""Within one file's analysis (``shared_walks``) the kept walks of its top-level statements,
``of_types``, ``parent_map`` and ``per_node`` answer exactly what walking afresh answers,
on real code (a sample of the standard library)."""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

from lsp_server.rts.ast_walk import of_types, parent_map, per_node, shared_walks, unshared, walk


def _trees(count: int) -> list[ast.Module]:
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:count]
    assert len(stdlib) == count
    return [ast.parse(p.read_text(encoding="utf-8", errors="replace")) for p in stdlib]


def test_a_statements_walk_kept_with_its_trees_is_its_own_walk() -> None:
    for tree in _trees(20):
        with shared_walks():
            assert list(map(id, walk(tree))) == list(map(id, ast.walk(tree)))
            for stmt in tree.body:  # handed out from the tree's walk
                assert list(map(id, walk(stmt))) == list(map(id, ast.walk(stmt)))


def test_nodes_of_types_in_walk_order_asked_once_or_again() -> None:
    kinds = [
        (ast.Name,),
        (ast.Name, ast.Attribute, ast.arg),
        (ast.stmt,),  # an abstract kind: its subclasses
        (ast.expr, ast.alias, ast.Global),
    ]
    for tree in _trees(12):
        nodes = [tree, *tree.body[:5]]
        expected = {
            (id(n), k): [id(x) for x in ast.walk(n) if isinstance(x, k)]
            for n in nodes
            for k in kinds
        }
        for n in nodes:
            for k in kinds:
                assert [id(x) for x in of_types(n, k)] == expected[id(n), k]
        with shared_walks():
            for _ in range(3):  # the first ask filters the walk, later ones use its index
                for n in nodes:
                    for k in kinds:
                        assert [id(x) for x in of_types(n, k)] == expected[id(n), k]


def test_parents_of_a_trees_nodes() -> None:
    for tree in _trees(12):
        expected = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                expected[id(child)] = node  # the shared ``Load``: its last parent
        assert parent_map(tree) == expected
        with shared_walks():
            assert parent_map(tree) == expected
            walk(tree)
            assert parent_map(tree) == expected


def test_a_fact_per_node_asked_once_within_a_files_analysis() -> None:
    calls: list[int] = []

    @per_node
    def names(node: ast.AST) -> frozenset[str]:
        calls.append(id(node))
        return frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))

    tree = ast.parse("x = y\ndef f(a):\n    return a + z\n")
    assert names(tree) == names(tree) == {"x", "y", "a", "z"}
    assert len(calls) == 2  # outside an analysis: asked afresh
    calls.clear()
    with shared_walks():
        assert names(tree) == {"x", "y", "a", "z"}
        assert names(tree.body[0]) == {"x", "y"}
        assert names(tree) == {"x", "y", "a", "z"}
    assert calls == [id(tree), id(tree.body[0])]
    calls.clear()
    with shared_walks():
        names(tree)
    assert calls == [id(tree)]  # each analysis its own answers


def test_a_fact_found_while_the_tree_was_changed_is_not_kept() -> None:
    tree = ast.parse("x = y\n")
    answers = iter([frozenset(["changed"]), frozenset(["x", "y"])])

    @per_node
    def fact(node: ast.AST) -> frozenset[str]:
        with unshared():  # as the digests swap parts of a class out and back
            return next(answers)

    with shared_walks():
        assert fact(tree) == {"changed"}
        assert fact(tree) == {"x", "y"}  # asked again
