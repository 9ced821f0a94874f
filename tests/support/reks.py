"""Helpers: a small project with its own tests, recorded once with ``pytest --reks-all``
and copied per test, and a refactoring engine on the copy with the REKS listener installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.model import RefactoringResult, RefactorRequest
from lsp_server.rts.file_units import Unit
from lsp_server.rts.select import select_affected_tests
from lsp_server.rts.store import DependencyStore
from lsp_server.trust.task_listener import TaskListener, install
from tests.support import SUBPROCESS_PYTEST_ADDOPTS

FILES = {
    "conftest.py": "",
    "pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests']\n",
    "pkg/__init__.py": "",
    "pkg/util.py": """\
        import os


        def _helper(x):
            return x + 1


        def double(value):
            return value * 2


        def quadruple(value):
            total = double(value)
            total = total * 2
            return total


        class Counter:
            def __init__(self):
                self.count = 0

            def bump(self, n):
                self.count = self.count + _helper(n) - 1
                return self.count
        """,
    "pkg/shapes.py": """\
        from pkg.util import _helper, double


        def area(w, h):
            return w * h


        def scaled_area(w, h):
            return double(area(w, h)) + _helper(0) - 1
        """,
    "pkg/other.py": """\
        LIMIT = 10


        def clip(value):
            return min(value, LIMIT)


        def make_scaler(factor):
            def scale(value):
                return value * factor

            return scale
        """,
    "tests/test_util.py": """\
        from pkg.util import Counter, double, quadruple


        def test_double():
            assert double(2) == 4


        def test_quadruple():
            assert quadruple(3) == 12


        def test_counter():
            c = Counter()
            c.bump(2)
            assert c.count == 2
        """,
    "tests/test_shapes.py": """\
        from pkg.shapes import area, scaled_area


        def test_area():
            assert area(2, 3) == 6


        def test_scaled_area():
            assert scaled_area(2, 3) == 12
        """,
    "tests/test_other.py": """\
        from pkg.other import clip, make_scaler


        def test_clip():
            assert clip(12) == 10


        def test_scaler():
            assert make_scaler(3)(2) == 6
        """,
}


def run_pytest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A real pytest run of the project in a subprocess, with our plugin."""
    env = {
        **os.environ,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_ADDOPTS": SUBPROCESS_PYTEST_ADDOPTS,
    }
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )


def write_files(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


Deps = dict[str, dict[Unit, str | None]]


def dependencies(root: Path) -> Deps:
    with DependencyStore(root, create=False) as store:
        return {nodeid: store.dependencies_of(nodeid) for nodeid in store.test_records()}


def selected(root: Path) -> dict[str, str]:
    with DependencyStore(root, create=False) as store:
        selection = select_affected_tests(root, store)
    return {nodeid: str(reason) for nodeid, reason in selection.selected.items()}


@pytest.fixture(scope="session")
def recorded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reks-template") / "proj"
    root.mkdir()
    write_files(root, FILES)
    result = run_pytest(root, "--reks-all")
    assert result.returncode == 0, result.stdout + result.stderr
    return root


@pytest.fixture
def project(recorded_template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(recorded_template, root)
    return root


@dataclass
class Reks:
    """The engine with the REKS listener on one project."""

    root: Path
    engine: RefactorEngine
    listener: TaskListener

    def request(self, action: str, rel: str, needle: str, delta: int = 0, **args: object):
        path = self.root / rel
        text = path.read_text()
        offset = text.index(needle) + delta
        end = args.pop("length", None)
        return RefactorRequest(
            action,
            str(path),
            offset,
            None if end is None else offset + int(end),  # type: ignore[call-overload]
            dict(args),
        )

    def apply(self, action: str, rel: str, needle: str, delta: int = 0, **args: object):
        result: RefactoringResult = self.engine.compute(
            self.request(action, rel, needle, delta, **args)
        )
        self.engine.apply(result, str(self.root))
        return result, self.listener.last


@pytest.fixture
def reks(project: Path) -> Iterator[Reks]:
    engine = RefactorEngine()
    engine.add_root(str(project))
    listener = install(engine)
    yield Reks(project, engine, listener)
    engine.close()
