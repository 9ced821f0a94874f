"""The workers run the tests with plain asserts: only whether a test failed matters to a
verdict, so pytest's assertion rewriting (most of a first collection's time on toolz and
boltons) and the explanation it renders at each failing assert are work for nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse

from .conftest import verdict_rows

BOX_MODULE = """
def box(x):
    return Box(x)

class Box:
    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return isinstance(other, Box) and other.x == self.x

    def __repr__(self):
        # Called only to explain a failed assert.
        open("explained.txt", "a").write("repr\\n")
        return f"Box({self.x})"
"""

BOX_TEST = """
from m import Box, box

def test_box():
    assert box(1) == Box(1)
"""


def test_asserts_are_neither_rewritten_nor_explained(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"m.py": BOX_MODULE, "test_m.py": BOX_TEST})
    analysis = analyse(root, Options(jobs=1, incremental=False))
    assert ("Box.__eq__", "return False", "detected") in verdict_rows(analysis)
    cached = [p.name for p in (root / ".reks" / "pycache").rglob("test_m.*.pyc")]
    assert cached and not [name for name in cached if "-pytest-" in name], cached
    assert not (root / "explained.txt").exists()
