"""The import-time digest of a binding swaps function bodies out in place instead of
copying the statement: its digest must stay what the copy gave (stored checksums keep
their meaning) and the parsed tree must come back unchanged (the analysis reads it on)."""

from __future__ import annotations

import ast
import copy
import sysconfig
from pathlib import Path

import xxhash

from lsp_server.rts.import_digest import import_time_digest


class _StripBodiesOfACopy(ast.NodeTransformer):
    """The digest's definition: the statement with every function body replaced by pass
    and every lambda body by ``None``."""

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        node.body = ast.Constant(None)
        return self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.body = [ast.Pass()]
        return self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        node.body = [ast.Pass()]
        return self.generic_visit(node)


def _reference(stmt: ast.stmt) -> str:
    stripped = _StripBodiesOfACopy().visit(copy.deepcopy(stmt))
    return xxhash.xxh64_hexdigest(ast.dump(stripped).encode())


def test_the_digest_is_the_copys_and_leaves_the_tree_as_it_was() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    checked = 0
    for name in ("dataclasses", "functools", "typing", "enum", "argparse", "asyncio/tasks"):
        tree = ast.parse((stdlib / f"{name}.py").read_text(encoding="utf-8"))
        for stmt in tree.body:
            before = ast.dump(stmt, include_attributes=True)
            assert import_time_digest(stmt) == _reference(stmt), (name, stmt.lineno)
            assert ast.dump(stmt, include_attributes=True) == before
            checked += 1
    assert checked > 300


def test_nested_bodies_are_left_out_and_decorators_kept() -> None:
    source = "@deco(1)\nclass C:\n    x = 1\n    async def f(self, a=2):\n        def g(): pass\n"
    changed_body = source.replace("def g(): pass", "return 3")
    changed_default = source.replace("a=2", "a=3")
    digest = import_time_digest(ast.parse(source).body[0])
    assert digest == import_time_digest(ast.parse(changed_body).body[0])
    assert digest != import_time_digest(ast.parse(changed_default).body[0])
