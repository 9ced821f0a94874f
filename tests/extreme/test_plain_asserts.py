"""The workers run the tests with plain asserts: only whether a test failed matters to a
verdict, so pytest's assertion rewriting (most of a first collection's time on toolz and
boltons) and the explanation it renders at each failing assert are work for nothing; unless
a test may read an assert's message (``assert_mode``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.assert_mode import assert_mode

from .conftest import INC_MODULE, verdict_rows

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


CHECKED_MESSAGE_TEST = """
import pytest
from m import inc

def check_positive(x):
    assert x > 0

def test_inc_and_the_message_of_an_assert():
    with pytest.raises(AssertionError, match="assert -1 > 0"):
        check_positive(-1)
    assert inc(1) == 2
"""


def test_asserts_are_rewritten_when_a_test_may_read_their_message(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"m.py": INC_MODULE, "test_m.py": CHECKED_MESSAGE_TEST})
    analysis = analyse(root, Options(jobs=1, incremental=False))
    # Plain asserts would fail the test on the original code: ``inc`` would be skipped.
    inc = [
        (body, verdict) for function, body, verdict in verdict_rows(analysis) if function == "inc"
    ]
    assert inc and all(verdict == "detected" for _, verdict in inc), inc


def test_only_a_test_that_catches_an_assertion_error_needs_rewriting(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "m.py").write_text("try:\n    pass\nexcept AssertionError:\n    pass\n")
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    raise AssertionError('x')\n")
    assert assert_mode(tmp_path) == "plain"  # code under test is never rewritten
    (tmp_path / "tests" / "conftest.py").write_text(
        "try:\n    pass\nexcept AssertionError:\n    pass\n"
    )
    assert assert_mode(tmp_path) == "rewrite"
