"""Temporary projects for the factoring tests: an environment module E that is slow on
purpose (``time.sleep``), code under test T that uses it, and pytest tests of T."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from lsp_server.factoring.factor import FactorResult, factor_test
from lsp_server.factoring.runner import run_pytest
from lsp_server.project import Project

ENV = """
import time


class Store:
    def __init__(self, name):
        self.name = name
        self.rows = []
        self.size = 0
        self.mode = "r"

    def put(self, row):
        time.sleep(0.02)
        self.rows.append(row)
        self.size = len(self.rows)

    def get_count(self):
        return len(self.rows)

    def set_a(self, value):
        self.a = value

    def set_b(self, value):
        self.b = value

    def scan(self):
        for row in self.rows:
            yield row

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True
        return False

    def sort_by(self, key):
        return sorted(self.rows, key=key)

    def fill(self, target):
        target.extend(self.rows)

    def same(self):
        return self

    def fail(self, key):
        raise KeyError(key)


def open_store(name):
    time.sleep(0.15)
    return Store(name)


def compute(x):
    time.sleep(0.15)
    return {"double": x * 2, "pair": (x, x), "items": [x, x + 1]}


def write(sink, text):
    sink.write(text)
"""


def make_project(root: Path, logic: str, tests: str, env: str = ENV) -> Path:
    """``app/env.py`` (E), ``app/logic.py`` (T), ``tests/test_logic.py``."""
    files = {
        "app/__init__.py": "",
        "app/env.py": env,
        "app/logic.py": logic,
        "tests/test_logic.py": tests,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


def factor(root: Path, nodeid: str, *boundaries: str) -> FactorResult:
    return factor_test(root, nodeid, list(boundaries))


def outcomes(root: Path, *nodeids: str) -> dict[str, dict[str, Any]]:
    """Run tests (real pytest in a subprocess) and return each one's outcome entry."""
    tests: dict[str, dict[str, Any]] = run_pytest(Project.at(root), list(nodeids), {"time": True})[
        "tests"
    ]
    return tests


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new), encoding="utf-8")
