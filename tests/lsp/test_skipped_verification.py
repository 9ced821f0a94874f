"""End to end over stdio: the server runs the tests REKS skipped when the editor is idle;
a failure raises an alarm (a warning message naming the refactoring, a diagnostic on the
line it changed), and the setting ``verifySkipped: "off"`` keeps it from running."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_server.refactor.engine import RefactorEngine
from lsp_server.rts.store import DependencyStore
from lsp_server.trust.task_listener import install
from tests.rts.test_verify_skipped import UTIL, WRONG, announce_wrong_extract
from tests.support.lsp import SERVER_COMMAND, make_client, open_session
from tests.support.reks import Reks

pytestmark = pytest.mark.timeout(120)

CONFIG = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client)


@pytest.fixture
def broken_project(
    recorded_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A recorded project after a wrong edit REKS trusted: three tests wait to be verified."""
    monkeypatch.setenv("REKS_KNOWN_FAILURES", str(tmp_path / "known_failures.json"))
    root = tmp_path / "proj"
    shutil.copytree(recorded_template, root)
    engine = RefactorEngine()
    engine.add_root(str(root))
    try:
        announce_wrong_extract(Reks(root, engine, install(engine, report=None)))
    finally:
        engine.close()
    return root


def pending(root: Path) -> int:
    with DependencyStore(root, create=False) as store:
        return len(store.pending_tests())


async def until(check: Callable[[], bool], what: str, seconds: float = 60) -> None:
    for _ in range(int(seconds / 0.1)):
        if check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


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

    await until(lambda: bool(alarms()), "the alarm message")
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
