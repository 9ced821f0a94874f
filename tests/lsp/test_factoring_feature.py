"""The real server over stdio: "Factor this test" on a test function factors it with the
best boundary, and a factored test whose environment then changes gets a diagnostic."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_server.lsp.features.test_factoring import FACTOR, REPLAY_CLOCK, TITLE, WARNING, nodeid_at
from tests.factoring.helpers import make_project
from tests.factoring.test_validity_over_time import (
    COMMIT_ENV,
    COMMIT_LOGIC,
    COMMIT_TESTS,
    RECENT,
)
from tests.support.lsp import SERVER_COMMAND, make_client, open_document, open_session

pytestmark = pytest.mark.timeout(180)

CONFIG = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client)

# E waits on a threading event (language plumbing, never a boundary of its own), so that
# app.env itself is the best boundary and a change to it makes the factored test stale.
ENV = """
import threading


def slow(x):
    threading.Event().wait(0.3)
    return x * 2
"""
LOGIC = """
from app import env


def work():
    return env.slow(2) + 1
"""
TESTS = """
from app import logic


def test_it():
    assert logic.work() == 5
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "p", LOGIC, TESTS, env=ENV)


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient, project: Path):
    await open_session(lsp_client, project)
    yield
    await lsp_client.shutdown_session()


def test_the_test_under_the_cursor() -> None:
    text = (
        "import x\n\n\ndef test_a():\n    pass\n\n\n"
        "class TestB:\n    def test_c(self):\n        x = 1\n"
    )
    assert nodeid_at(text, 5, "t/test_m.py") == "t/test_m.py::test_a"
    assert nodeid_at(text, 10, "t/test_m.py") == "t/test_m.py::TestB::test_c"
    assert nodeid_at(text, 1, "t/test_m.py") is None


async def test_factor_this_test_then_a_changed_environment_is_reported(
    client: LanguageClient, project: Path
) -> None:
    tests = project / "tests/test_logic.py"
    open_document(client, tests)
    at = types.Position(line=4, character=8)  # inside test_it
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=tests.as_uri()),
            range=types.Range(at, at),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    factor = next(a for a in actions or [] if a.title == TITLE)
    assert isinstance(factor, types.CodeAction) and factor.command is not None
    command = factor.command
    assert command.command == FACTOR
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command.command, arguments=command.arguments)
    )
    assert result["status"] == "factored", result
    assert result["boundaries"] == ["app.env"]
    factored = project / result["factored_test"].split("::")[0]
    assert factored.exists()

    env = project / "app/env.py"
    env.write_text(env.read_text().replace("x * 2", "x * 3"))
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=env.as_uri())
        )
    )
    for _ in range(300):
        if client.diagnostics.get(factored.as_uri()):
            break
        await asyncio.sleep(0.1)
    [stale] = client.diagnostics[factored.as_uri()]
    assert "stale factored test of tests/test_logic.py::test_it" in stale.message


CLOCK_LOGIC = """
import time

from app import env


def work():
    started = time.time()
    return env.slow(2) + 1 + 0 * int(started)
"""


async def test_a_factored_test_whose_code_reads_the_clock_is_flagged(
    client: LanguageClient, project: Path
) -> None:
    """The factoring's warnings (T reads the wall clock while E is replayed from the
    capture's moment) reach the editor: a message when factoring ends, and a diagnostic on
    the factored test that stays while its transcript has them."""
    (project / "app/logic.py").write_text(CLOCK_LOGIC, encoding="utf-8")
    tests = project / "tests/test_logic.py"
    arguments = ["tests/test_logic.py::test_it", ["app.env"], str(tests)]
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=FACTOR, arguments=arguments)
    )
    assert result["status"] == "factored", result
    assert any("reads the wall clock" in w for w in result["warnings"]), result
    assert any(
        "reads the wall clock" in m.message and m.type == types.MessageType.Warning
        for m in client.messages
    ), client.messages
    factored = project / result["factored_test"].split("::")[0]
    for _ in range(300):
        if client.diagnostics.get(factored.as_uri()):
            break
        await asyncio.sleep(0.1)
    [warning] = client.diagnostics[factored.as_uri()]
    assert warning.code == WARNING and warning.severity == types.DiagnosticSeverity.Warning
    assert "app/logic.py:8 time.time" in warning.message, warning.message


@pytest.mark.slow  # a capture, the checks, and a second factoring with T's clock replayed
async def test_a_refusal_for_the_clock_offers_to_replay_the_clock_of_the_test(
    client: LanguageClient, project: Path
) -> None:
    """A factored test that fails once time has passed (T compares the time now with E's
    recorded answer) is refused; the editor says why and offers what ``reks factor
    --clock-in-e`` does: answered, the test is factored with T's clock replayed."""
    files = {
        "app/env.py": COMMIT_ENV,
        "app/logic.py": COMMIT_LOGIC,
        "tests/test_logic.py": COMMIT_TESTS,
    }
    for rel, text in files.items():
        (project / rel).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    asked: list[types.ShowMessageRequestParams] = []

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def answer(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        asked.append(params)
        return next(iter(params.actions or []), None)

    tests = project / "tests/test_logic.py"
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=FACTOR, arguments=[RECENT, ["app.env"], str(tests)])
    )
    [question] = asked
    assert "days later" in question.message and RECENT in question.message, question.message
    assert [a.title for a in question.actions or []] == [REPLAY_CLOCK]
    assert result["status"] == "factored", result
    transcript = json.loads((project / result["transcript"]).read_text(encoding="utf-8"))
    assert transcript["t_clock"] == "capture"


async def test_a_refused_factoring_says_why(client: LanguageClient, project: Path) -> None:
    """ "Factor this test" that cannot factor (no boundary below a test that calls nothing
    of the project) tells the user why instead of ending in silence."""
    tests = project / "tests/test_logic.py"
    tests.write_text("def test_alone():\n    assert 1 + 1 == 2\n", encoding="utf-8")
    nodeid = "tests/test_logic.py::test_alone"
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=FACTOR, arguments=[nodeid, [], str(tests)])
    )
    assert result["status"] == "refused", result
    assert any(nodeid in m.message and result["reason"] in m.message for m in client.messages), (
        client.messages
    )
