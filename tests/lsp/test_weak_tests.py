"""End to end: the real server over stdio runs "Analyse weak tests" on a copy of the example."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_server.lsp.features.weak_tests import COMMAND
from tests.support.lsp import SERVER_COMMAND, open_session

CONFIG = ClientServerConfig(server_command=SERVER_COMMAND)


async def test_analyse_weak_tests_publishes_diagnostics_on_def_lines(
    example_client: LanguageClient, example: Path
) -> None:
    source = example / "versioned_set.py"
    before = source.read_bytes()
    result = await example_client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=COMMAND, arguments=[])
    )
    assert result["roots"][0]["pseudoTested"] == 2
    assert result["roots"][0]["partiallyTested"] == 1

    diagnostics = example_client.diagnostics[source.as_uri()]
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
    reports = [r for rs in example_client.progress_reports.values() for r in rs]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert source.read_bytes() == before


SLOW = """\
def double(x):
    y = x * 2
    return y


def triple(x):
    y = x * 3
    return y
"""

SLOW_TESTS = """\
import time

from slow import double, triple


def test_double():
    time.sleep(1.5)  # slow, and no assertion: every transformation runs it to the end
    double(2)


def test_triple():
    time.sleep(1.5)
    triple(2)
"""


def _workers_of(root: Path) -> list[int]:
    """Live worker processes (and their forked children) started for ``root``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().split()[2]
        except OSError:
            continue
        ours = b"lsp_server.extreme.pytest_worker" in cmdline and str(root).encode() in cmdline
        if ours and state != "Z":
            found.append(int(proc.name))
    return found


@pytest.fixture
def slow_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "slow"
    root.mkdir()
    (root / "slow.py").write_text(SLOW)
    (root / "test_slow.py").write_text(SLOW_TESTS)
    return root


@pytest_lsp.fixture(config=CONFIG)
async def slow_client(lsp_client: LanguageClient, slow_workspace: Path):
    await open_session(lsp_client, slow_workspace)
    yield
    await lsp_client.shutdown_session()


async def test_cancelling_the_progress_stops_the_analysis(
    slow_client: LanguageClient, slow_workspace: Path
) -> None:
    command = asyncio.ensure_future(
        slow_client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=COMMAND, arguments=[])
        )
    )
    token = None
    for _ in range(600):  # wait until transformations are running
        await asyncio.sleep(0.05)
        for key, reports in slow_client.progress_reports.items():
            if any("transformations" in (getattr(r, "message", "") or "") for r in reports):
                token = key
        if token is not None:
            break
    assert token is not None, slow_client.progress_reports
    assert _workers_of(slow_workspace)
    slow_client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    started = time.monotonic()
    with pytest.raises(Exception, match="cancelled"):
        await command
    assert time.monotonic() - started < 10
    for _ in range(100):
        if not _workers_of(slow_workspace):
            break
        await asyncio.sleep(0.1)
    assert _workers_of(slow_workspace) == []
    assert (slow_workspace / "slow.py").read_text() == SLOW


@pytest_lsp.fixture(config=CONFIG)
async def configured_client(lsp_client: LanguageClient, example: Path):
    await open_session(
        lsp_client,
        example,
        profile="neovim@v0.11.0",
        options={"extreme": {"skipPatterns": ["*.is_empty"], "jobs": 1}},
    )
    yield
    await lsp_client.shutdown_session()


async def test_settings_skip_patterns(configured_client: LanguageClient, example: Path) -> None:
    source = example / "versioned_set.py"
    result = await configured_client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=COMMAND, arguments=[source.as_uri()])
    )
    assert result["roots"][0]["pseudoTested"] == 1  # is_empty is no longer analysed
    lines = {d.range.start.line + 1 for d in configured_client.diagnostics[source.as_uri()]}
    assert lines == {13, 29}
    rows = json.loads((example / ".reks" / "extreme.json").read_text())
    is_empty = [r for r in rows if r["function"] == "VersionedSet.is_empty"]
    assert [r["verdict"] for r in is_empty] == ["skipped"]
    assert "*.is_empty" in is_empty[0]["reason"]


SETTINGS_PROJECT = {
    "calc.py": """\
def cached():
    value = 21
    return value


CACHED = cached()


def double(x):
    y = x * 2
    return y
""",
    "test_calc.py": """\
import time

from calc import CACHED, cached, double


def test_double():
    double(2)


def test_cached():
    cached()
    assert CACHED == 21


def test_sleeps():
    time.sleep(4)
""",
}


@pytest.fixture
def settings_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "settings"
    root.mkdir()
    for name, text in SETTINGS_PROJECT.items():
        (root / name).write_text(text)
    return root


@pytest_lsp.fixture(config=CONFIG)
async def run_settings_client(lsp_client: LanguageClient, settings_workspace: Path):
    # The way VS Code and the Neovim module send them: nested under "reks".
    options = {"reks": {"extreme": {"jobs": 1, "testTimeout": 1, "onDisk": False}}}
    await open_session(lsp_client, settings_workspace, options=options)
    yield
    await lsp_client.shutdown_session()


async def test_run_settings_reach_the_analysis(
    run_settings_client: LanguageClient, settings_workspace: Path
) -> None:
    result = await run_settings_client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=COMMAND, arguments=[])
    )
    # testTimeout: the 4 s test is stopped at 1 s on the original code and left out.
    assert result["roots"][0]["hungTests"] == ["test_calc.py::test_sleeps"]
    # onDisk off: the function that ran at import is not checked on disk.
    rows = json.loads((settings_workspace / ".reks" / "extreme.json").read_text())
    cached = [r for r in rows if r["function"] == "cached"]
    assert cached and all(r["verdict"] == "skipped" for r in cached), cached
    assert all("not analysable in place" in r["reason"] for r in cached)
