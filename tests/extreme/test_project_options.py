"""The workers run the tests with the project's own pytest options (its ini ``addopts``),
less those that cannot apply inside a worker: a project whose ``addopts`` collect doctests
(parse: ``--doctest-modules --doctest-glob=README.rst``) has functions only a doctest
checks, and with the options dropped those were reported pseudo-tested."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.project_options import kept_options

from .conftest import verdict_rows

DOCTESTED = '''
def double(x):
    """
    >>> double(2)
    4
    """
    total = 0
    for _ in range(2):
        total += x
    return total


def inc(x):
    total = x
    for _ in range(1):
        total += 1
    return total
'''

INC_TEST = """
from m import inc

def test_inc():
    assert inc(1) == 2
"""

INI = """
[pytest]
addopts = --doctest-modules -n 2 --dist load --lf -x --maxfail=3
    --cov=m --cov-report term -p no:warnings
"""


def test_a_function_only_a_doctest_of_the_addopts_checks_is_detected(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"m.py": DOCTESTED, "test_m.py": INC_TEST, "pytest.ini": INI})
    analysis = analyse(root, Options(jobs=1, incremental=False))
    rows = verdict_rows(analysis)
    doubled = [verdict for function, _, verdict in rows if function == "double"]
    assert doubled and set(doubled) == {"detected"}, rows


def test_options_a_worker_cannot_apply_are_dropped_with_their_values() -> None:
    given = [
        *("--doctest-modules", "-n", "2", "--dist", "load", "--lf", "-x", "--maxfail=3"),
        *("--cov=m", "--cov-report", "term", "--cov", "-p", "no:warnings", "-W", "error"),
        *("--numprocesses=auto", "--junitxml", "out.xml", "--pdb", "-ra", "--reks-all", "-n4"),
    ]
    assert kept_options(given) == ["--doctest-modules", "-p", "no:warnings", "-W", "error", "-ra"]
