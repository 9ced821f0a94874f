"""The factoring plugin is loaded by every pytest run where reks is installed (an entry
point): a run that neither captures nor replays must not import the factoring machinery
(capture, replay, transcripts, suggestions: about 60 ms of every plain run)."""

from __future__ import annotations

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
