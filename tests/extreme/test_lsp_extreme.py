"""End to end: the real server over stdio runs "Analyse weak tests" on a copy of the example."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from lsp_server.lsp.extreme import COMMAND

from .conftest import EXAMPLE

CONFIG = ClientServerConfig(server_command=[sys.executable, "-m", "lsp_server"])


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "versioned_set"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", ".reks"))
    return root


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient, workspace: Path):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="vs")],
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_analyse_weak_tests_publishes_diagnostics_on_def_lines(
    client: LanguageClient, workspace: Path
) -> None:
    source = workspace / "versioned_set.py"
    before = source.read_bytes()
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=COMMAND, arguments=[])
    )
    assert result["roots"][0]["pseudoTested"] == 2
    assert result["roots"][0]["partiallyTested"] == 1

    diagnostics = client.diagnostics[source.as_uri()]
    by_line = {d.range.start.line + 1: d for d in diagnostics}
    lines = source.read_text().splitlines()
    # _increment_version and is_empty: every transformation undetected (pseudo-tested);
    # __eq__: `return True` undetected, `return False` detected (partially tested).
    assert set(by_line) == {13, 23, 29}
    assert by_line[13].code == "pseudo-tested"
    assert by_line[13].severity == types.DiagnosticSeverity.Warning
    assert by_line[23].code == "pseudo-tested"
    assert by_line[29].code == "partially-tested"
    assert "return True" in by_line[29].message and "return False" not in by_line[29].message
    for line, diagnostic in by_line.items():
        start, end = diagnostic.range.start.character, diagnostic.range.end.character
        assert lines[line - 1][start - 4 : start] == "def "
        assert diagnostic.data["function"].endswith(lines[line - 1][start:end])

    # Progress was reported with begin ... end on one token.
    reports = [r for rs in client.progress_reports.values() for r in rs]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert source.read_bytes() == before
