"""rope's scope regions computed statement-wise are the regions rope computes for the
whole module, on standard-library modules and on a module with every kind of scope."""

from __future__ import annotations

import sysconfig
import textwrap
from pathlib import Path
from typing import Any

import pytest
from rope.base import pyscopes
from rope.base.project import Project

from lsp_server.refactor import rope_scopes

EVERY_SCOPE = textwrap.dedent(
    '''\
    import functools
    # def not_a_function(): a comment that looks like one
    X = [i * 2 for i in range(3)]  # a comprehension at module level


    @functools.lru_cache(maxsize=None)
    @staticmethod
    def decorated(a, b=lambda: 1):
        """def in a docstring"""
        return {k: v for k, v in zip(a, b)}


    class Outer:
        class Inner:
            def method(self):
                return (x for x in self)

        async def run(self):
            async with self as s:
                return [await t for t in s]


    Y = {"def": 1}; Z = lambda q: q + 1


    def last():
        pass
    '''
)


def _regions(root: Path, rel: str, version: Any, monkeypatch: pytest.MonkeyPatch) -> dict:
    monkeypatch.setattr(pyscopes.GlobalScope, "_calculate_scope_regions", version)
    project = Project(str(root), ropefolder=None)
    try:
        found: dict[tuple[int, str], tuple[int, int]] = {}

        def walk(scope: Any) -> None:
            for inner in scope.get_scopes():
                node = inner.pyobject.get_ast()
                found[(node.lineno, type(node).__name__)] = inner.get_region()
                walk(inner)

        walk(project.get_pymodule(project.get_resource(rel)).get_scope())
        return found
    finally:
        project.close()


@pytest.mark.parametrize("module", ["every_scope.py", "textwrap.py", "shlex.py", "colorsys.py"])
def test_statement_wise_regions_are_rope_s_regions(
    module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = (
        EVERY_SCOPE
        if module == "every_scope.py"
        else (Path(sysconfig.get_paths()["stdlib"]) / module).read_text()
    )
    (tmp_path / module).write_text(source)
    theirs = _regions(tmp_path, module, rope_scopes.ORIGINAL, monkeypatch)
    ours = _regions(tmp_path, module, rope_scopes._calculate_scope_regions, monkeypatch)
    assert len(theirs) >= 5
    assert ours == theirs
