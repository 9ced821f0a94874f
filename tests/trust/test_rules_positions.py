"""A refactoring that moves code down moves what line-reading tests see: the REKS rules
never take a function's place (``<lines>``) or a file's ``<layout>`` as unchanged for its
readers, however behaviour-preserving the task. A real rope extract-method on a real
recorded project."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.refactor.engine import RefactorEngine
from lsp_server.trust.task_listener import install
from tests.support.reks import Reks, run_pytest, selected, write_files

FILES = {
    "conftest.py": "",
    "pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests']\n",
    "pkg/__init__.py": "",
    "pkg/m.py": """\
        import warnings


        def total(values):
            s = 0
            for v in values:
                s += v * 2 + 1
            return s


        def noisy():
            warnings.warn("careful", UserWarning)
            return 3
        """,
    "tests/test_m.py": """\
        import warnings

        from pkg.m import noisy, total


        def test_total():
            assert total([1, 2]) == 8


        def test_warning_line():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                noisy()
            assert caught[0].lineno == 12
        """,
}


@pytest.fixture
def reks(tmp_path: Path) -> Iterator[Reks]:
    root = tmp_path / "proj"
    write_files(root, FILES)
    result = run_pytest(root, "--reks-all")
    assert result.returncode == 0, result.stdout + result.stderr
    engine = RefactorEngine()
    engine.add_root(str(root))
    yield Reks(root, engine, install(engine))
    engine.close()


def test_an_extract_method_moving_a_warner_down_selects_the_test_reading_its_line(
    reks: Reks,
) -> None:
    _, outcome = reks.apply("extract-method", "pkg/m.py", "v * 2 + 1", 0, name="f", length=9)
    text = (reks.root / "pkg/m.py").read_text()
    assert text.index("def f(") < text.index("def noisy")  # the warner moved down
    assert outcome is not None and outcome.fallback is None
    line_test = "tests/test_m.py::test_warning_line"
    assert line_test not in outcome.skipped_tests
    assert line_test in selected(reks.root)
    result = run_pytest(reks.root, "--reks")
    assert "1 failed" in result.stdout, result.stdout  # it runs, and fails at the child
