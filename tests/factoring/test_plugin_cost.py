"""The factoring plugin is loaded by every pytest run where reks is installed (an entry
point): a run that neither captures nor replays must not import the factoring machinery
(capture, replay, transcripts, suggestions: about 60 ms of every plain run)."""

from __future__ import annotations

import json

import pytest

pytest_plugins = ["pytester"]

_LIGHT = {
    "lsp_server.factoring",
    "lsp_server.factoring.plugin",
    "lsp_server.factoring.side_by_side",
}


def test_a_plain_run_imports_only_the_plugin(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import sys
        from pathlib import Path


        def pytest_sessionfinish(session):
            loaded = sorted(m for m in sys.modules if m.startswith("lsp_server.factoring"))
            Path("loaded.txt").write_text("\\n".join(loaded))
        """
    )
    pytester.makepyfile(test_plain="def test_one():\n    assert True\n")
    result = pytester.runpytest_subprocess("-p", "lsp_server.factoring.plugin")
    result.assert_outcomes(passed=1)
    loaded = set((pytester.path / "loaded.txt").read_text().split())
    assert "lsp_server.factoring.plugin" in loaded
    assert loaded <= _LIGHT


_CLOSURES = """
import json
from pathlib import Path


def pytest_collection_finish(session):
    closures = {item.nodeid: list(item.fixturenames) for item in session.items}
    Path("closures.json").write_text(json.dumps(closures))
"""


def test_a_plain_run_sets_up_no_factoring_fixture(pytester: pytest.Pytester) -> None:
    """The autouse fixture does nothing for a test it neither captures, profiles nor
    replays: it is not in that test's closure (its setup and teardown cost every test of
    every project), and the test's own fixtures keep their order."""
    pytester.makeconftest(_CLOSURES)
    pytester.makepyfile(
        test_plain="""
        import pytest


        @pytest.fixture
        def first():
            return 1


        @pytest.mark.parametrize("n", [1, 2])
        def test_one(first, tmp_path, n):
            assert first == 1
        """
    )
    result = pytester.runpytest_subprocess("-p", "lsp_server.factoring.plugin")
    result.assert_outcomes(passed=2)
    closures = json.loads((pytester.path / "closures.json").read_text())
    for closure in closures.values():
        assert "_reks_factoring" not in closure
        assert closure.index("first") < closure.index("tmp_path")


def test_a_factored_module_keeps_the_fixture_first(pytester: pytest.Pytester) -> None:
    """Guard: a module replaying a transcript keeps the fixture, at the place autouse
    gives it (before the test's own fixtures: capture and replay open the window there),
    and it runs there (the transcript it names is missing: the setup errors)."""
    pytester.makeconftest(_CLOSURES)
    pytester.makepyfile(
        test_factored="""
        REKS_TRANSCRIPT = "missing.json"


        def test_one(tmp_path):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "lsp_server.factoring.plugin")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*FileNotFoundError*missing.json*"])
    closures = json.loads((pytester.path / "closures.json").read_text())
    factored = closures["test_factored.py::test_one"]
    assert factored.index("_reks_factoring") < factored.index("tmp_path")


def test_a_project_fixture_of_the_same_name_still_runs(pytester: pytest.Pytester) -> None:
    """Guard: a project's own autouse fixture named like the plugin's overrides it; it
    stays in every closure and runs."""
    pytester.makeconftest(
        """
        import pytest


        @pytest.fixture(autouse=True)
        def _reks_factoring():
            with open("ran.txt", "a") as out:
                out.write("x")
            yield
        """
    )
    pytester.makepyfile(test_plain="def test_one():\n    pass\n\n\ndef test_two():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "lsp_server.factoring.plugin")
    result.assert_outcomes(passed=2)
    assert (pytester.path / "ran.txt").read_text() == "xx"
