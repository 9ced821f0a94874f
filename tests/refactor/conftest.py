"""A small multi-module project with its own tests, and an engine on it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.refactor.engine import RefactorEngine
from tests.support.geometry import FILES as GEOMETRY

UTIL = """\
import os
import sys


def double(value):
    return value * 2


def quadruple(value):
    return double(value) * 2
"""

TEST_APP = """\
from app import main
from geometry.shapes import Shape, Square


def test_main():
    assert main() == 52


def test_describe():
    assert Square(2).describe() == "Square of area 4"
    assert Shape().area(3) == 0
"""


def write_project(root: Path) -> None:
    files = {
        **{rel: GEOMETRY[rel] for rel in ("geometry/__init__.py", "geometry/shapes.py", "app.py")},
        "geometry/util.py": UTIL,
        "tests/test_app.py": TEST_APP,
        "pyproject.toml": "[tool.pytest.ini_options]\npythonpath = ['.']\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def run_project_tests(root: Path) -> subprocess.CompletedProcess[str]:
    """Run the temporary project's own tests (without our pytest plugin's store)."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:reks", "tests"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    write_project(root)
    return root


def _engine_at(root: Path) -> Iterator[RefactorEngine]:
    eng = RefactorEngine()
    eng.add_root(str(root))
    yield eng
    eng.close()


@pytest.fixture
def engine(project: Path) -> Iterator[RefactorEngine]:
    yield from _engine_at(project)


@pytest.fixture
def tmp_engine(tmp_path: Path) -> Iterator[RefactorEngine]:
    """An engine whose workspace is ``tmp_path`` (for tests writing their own project)."""
    yield from _engine_at(tmp_path)


@pytest.fixture
def run_tests():  # type: ignore[no-untyped-def]
    """Run a temporary project's own tests; returns the completed process."""
    return run_project_tests


@pytest.fixture
def tmp_project(tmp_path: Path) -> Iterator[tuple[Path, RefactorEngine]]:
    """An empty project ``proj`` and an engine on it (for programs the test writes)."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    engine = RefactorEngine()
    engine.add_root(str(root))
    yield root, engine
    engine.close()
