"""The small project both real-editor tests open: a module to rename and extract from, its
tests, and a function that runs under a test that checks nothing (pseudo-tested)."""

from __future__ import annotations

from pathlib import Path

CALC = """\
def add(a, b):
    return a + b


def report(values):
    total = 0
    for value in values:
        total = add(total, value)
    print("sum", total * 2 + 1)
    return total
"""

MAIN = """\
from calc import add, report

print(add(1, 2))
print(report([1, 2, 3]))
"""

TESTS = """\
from calc import add, report


def test_add():
    assert add(2, 3) == 5


def test_report():
    assert report([1, 2, 3]) == 6
"""

# describe() runs under test_describe, which checks nothing: pseudo-tested.
STATS = """\
def describe(values):
    total = 0
    for value in values:
        total += value
    label = "big" if total > 10 else "small"
    print(label, total)
    return label
"""

STATS_TESTS = """\
from stats import describe


def test_describe():
    describe([1, 2])
"""


def write_project(root: Path, *, unused_import: bool = False) -> Path:
    """Write the project into a new folder ``root``; ``unused_import`` gives main.py an
    ``import os`` for organize-imports-on-save to remove."""
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\nversion = '0'\n")
    (root / "calc.py").write_text(CALC)
    (root / "main.py").write_text(("import os\n" if unused_import else "") + MAIN)
    (root / "test_calc.py").write_text(TESTS)
    (root / "helpers.py").write_text('"""Helpers."""\n')
    (root / "stats.py").write_text(STATS)
    (root / "test_stats.py").write_text(STATS_TESTS)
    return root
