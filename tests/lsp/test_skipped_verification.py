"""End to end over stdio: the server runs the tests REKS skipped when the editor is idle;
a failure raises an alarm (a warning message naming the refactoring, a diagnostic on the
line it changed), and the setting ``verifySkipped: "off"`` keeps it from running."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_server.refactor.engine import RefactorEngine
from lsp_server.rts.store import DependencyStore
from lsp_server.trust.task_listener import install
from tests.rts.test_verify_skipped import UTIL, WRONG, announce_wrong_extract
from tests.support.lsp import SERVER_COMMAND, make_client, open_document, open_session, until
from tests.support.reks import Reks, run_pytest

pytestmark = pytest.mark.timeout(300)  # background runs wait for idle: slow on a loaded machine

# The server learns shapes into a file of these tests, never into the user's.
SERVER_KNOWN_FAILURES = Path(tempfile.mkdtemp(prefix="reks-known-")) / "known_failures.json"
CONFIG = ClientServerConfig(
    server_command=SERVER_COMMAND,
    client_factory=make_client,
    server_env={**os.environ, "REKS_KNOWN_FAILURES": str(SERVER_KNOWN_FAILURES)},
)


def announce(root: Path) -> None:
    """The wrong edit REKS trusts, through an engine with the REKS listener."""
    engine = RefactorEngine()
    engine.add_root(str(root))
    try:
        announce_wrong_extract(Reks(root, engine, install(engine, report=None)))
    finally:
        engine.close()


@pytest.fixture
def broken_project(
    recorded_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A recorded project after a wrong edit REKS trusted: three tests wait to be verified."""
    monkeypatch.setenv("REKS_KNOWN_FAILURES", str(tmp_path / "known_failures.json"))
    root = tmp_path / "proj"
    shutil.copytree(recorded_template, root)
    announce(root)
    return root


def pending(root: Path) -> int:
    with DependencyStore(root, create=False) as store:
        return len(store.pending_tests())


@pytest_lsp.fixture(config=CONFIG)
async def idle_client(lsp_client: LanguageClient, broken_project: Path):
    await open_session(lsp_client, broken_project, options={"reks": {"verifySkippedAfter": 0.5}})
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG)
async def off_client(lsp_client: LanguageClient, broken_project: Path):
    options = {"reks": {"verifySkipped": "off", "verifySkippedAfter": 0}}
    await open_session(lsp_client, broken_project, options=options)
    yield
    await lsp_client.shutdown_session()


async def test_idle_server_verifies_and_raises_the_alarm(
    idle_client: LanguageClient, broken_project: Path
) -> None:
    client = idle_client

    def alarms() -> list[types.ShowMessageParams]:
        return [m for m in client.messages if "reks ALARM" in m.message]

    await until(lambda: bool(alarms()), "the alarm message", 60)
    [message] = alarms()
    assert message.type == types.MessageType.Warning
    assert f"refactoring task 1, {WRONG} (extract-variable" in message.message
    uri = (broken_project / UTIL).as_uri()
    await until(lambda: bool(client.diagnostics.get(uri)), "the alarm diagnostic")
    [diagnostic] = [d for d in client.diagnostics[uri] if d.code == "reks.alarm"]
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    changed = (broken_project / UTIL).read_text().splitlines().index("    factor = 3")
    assert diagnostic.range.start.line == changed
    assert pending(broken_project) == 0


async def test_off_setting_leaves_them_pending(
    off_client: LanguageClient, broken_project: Path
) -> None:
    await asyncio.sleep(2)
    assert not [m for m in off_client.messages if "reks ALARM" in m.message]
    assert pending(broken_project) == 3


SLOW_TEST = """\
import os
import time

from pkg.util import double


def test_double_slowly():
    # Slow only while the flag exists: the run that follows the edit may start before the
    # test removes the flag, and must then end as soon as it is removed.
    open("slow.started", "w").close()
    deadline = time.monotonic() + 60
    while os.path.exists("slow.flag") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert double(1) == 2
"""


@pytest.fixture
def slow_project(recorded_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The broken project with one more skipped test, which waits (up to a minute) while
    ``slow.flag`` exists (it does)."""
    monkeypatch.setenv("REKS_KNOWN_FAILURES", str(tmp_path / "known_failures.json"))
    root = tmp_path / "proj"
    shutil.copytree(recorded_template, root)
    (root / "tests" / "test_slow.py").write_text(SLOW_TEST)
    assert run_pytest(root, "--reks").returncode == 0
    announce(root)
    (root / "slow.flag").write_text("")
    return root


@pytest_lsp.fixture(config=CONFIG)
async def slow_client(lsp_client: LanguageClient, slow_project: Path):
    await open_session(lsp_client, slow_project, options={"reks": {"verifySkippedAfter": 0.5}})
    yield
    await lsp_client.shutdown_session()


def _ends(client: LanguageClient) -> list[str]:
    return [
        report.message or ""
        for reports in client.progress_reports.values()
        for report in reports
        if isinstance(report, types.WorkDoneProgressEnd)
    ]


def _begun(client: LanguageClient) -> bool:
    return any(
        isinstance(report, types.WorkDoneProgressBegin) and "verifying" in report.title
        for reports in client.progress_reports.values()
        for report in reports
    )


async def test_an_edit_stops_the_background_run(
    slow_client: LanguageClient, slow_project: Path
) -> None:
    client = slow_client
    await until(lambda: _begun(client), "the background verification to start", 60)
    started = slow_project / "slow.started"
    await until(started.exists, "pytest to be in the slow test", 60)
    open_document(client, slow_project / UTIL)
    await until(lambda: "paused until you stop typing" in _ends(client), "the run to stop", 30)
    with DependencyStore(slow_project, create=False) as store:
        assert "tests/test_slow.py::test_double_slowly" in store.pending_tests()
    # Idle again: the next run verifies the rest (fast now) and raises the alarm.
    (slow_project / "slow.flag").unlink()
    await until(lambda: any("reks ALARM" in m.message for m in client.messages), "the alarm", 120)
    await until(lambda: pending(slow_project) == 0, "every skipped test verified", 120)
