"""End to end over stdio (pytest-lsp, the real server): a rename makes the server say which
tests REKS skips, a hand edit which must run, and "Run affected tests" runs them with
pytest, after which the diagnostics go away."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.geometry import apply_text_edits, apply_workspace_edit
from tests.support.lsp import (
    SERVER_COMMAND,
    change_document,
    open_document,
    open_session,
    rename_at,
    until,
)
from tests.support.reks import run_pytest, selected

pytestmark = pytest.mark.timeout(120)


def make_client() -> LanguageClient:
    client = pytest_lsp.make_test_lsp_client()
    client.statuses = []  # type: ignore[attr-defined]

    @client.feature("reks/status")
    def status(params: Any) -> None:
        client.statuses.append(params)  # type: ignore[attr-defined]

    return client


CONFIG = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client)


@pytest.fixture
def e2e_project(recorded_template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(recorded_template, root)
    return root


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient, e2e_project: Path):
    await open_session(lsp_client, e2e_project, options={"reks": {"tests": {"summary": "message"}}})
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def unused_import_project(e2e_project: Path) -> Path:
    """The project with an unused import of a project module in ``pkg/util.py``, recorded:
    dropping it changes the module part every test of ``pkg.util`` depends on (an unused
    standard-library import is a binding of its own that no test reads)."""
    util = e2e_project / "pkg/util.py"
    util.write_text("from pkg import other\n" + util.read_text())
    recorded = run_pytest(e2e_project, "--reks-all", "-p", "no:xdist")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    return e2e_project


@pytest_lsp.fixture(config=CONFIG)
async def save_client(lsp_client: LanguageClient, unused_import_project: Path):
    await open_session(
        lsp_client,
        unused_import_project,
        options={"reks": {"onSave": ["organizeImports"], "tests": {"summary": "message"}}},
    )
    yield
    await lsp_client.shutdown_session()


def saved(client: LanguageClient, paths: list[Path]) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=p.as_uri(), type=types.FileChangeType.Changed) for p in paths
            ]
        )
    )
    for path in paths:
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri())
            )
        )


def messages(client: LanguageClient, uri: str) -> dict[int, str]:
    """Line -> message of the reks diagnostics in ``uri``."""
    return {
        d.range.start.line: str(d.message)
        for d in client.diagnostics.get(uri, [])
        if d.source == "reks"
    }


def line_of(path: Path, needle: str) -> int:
    return path.read_text().splitlines().index(needle)


async def test_rename_skips_tests_and_run_affected_tests(
    client: LanguageClient, e2e_project: Path
) -> None:
    util = e2e_project / "pkg/util.py"
    shapes_tests = e2e_project / "tests/test_shapes.py"
    util_tests = e2e_project / "tests/test_util.py"

    # A hand edit first: the tests of `area` must run whatever refactorings follow.
    shapes = e2e_project / "pkg/shapes.py"
    shapes.write_text(shapes.read_text().replace("return w * h", "return h * w"))
    saved(client, [shapes])

    edit = await rename_at(client, util, "def _helper", 4, "_plus_one")
    assert edit is not None
    # the server announces the task once it sees the files
    saved(client, apply_workspace_edit(edit))

    counter = line_of(util_tests, "def test_counter():")
    skipped = "skipped: affected only by rename `_helper` -> `_plus_one`"
    # Diagnostics of the hand edit may come first; then the rename's.
    await until(
        lambda: messages(client, util_tests.as_uri()).get(counter) == skipped,
        "the skipped diagnostic on test_counter",
    )
    await until(lambda: len(messages(client, shapes_tests.as_uri())) == 2, "test_shapes")
    shapes_msgs = messages(client, shapes_tests.as_uri())
    area = line_of(shapes_tests, "def test_area():")
    assert shapes_msgs[area].startswith("must run: pkg/shapes.py::area changed")
    assert shapes_msgs[line_of(shapes_tests, "def test_scaled_area():")].startswith("must run")
    # The summary follows the diagnostics as its own notification.
    await until(
        lambda: any("rename `_helper` -> `_plus_one`" in m.message for m in client.messages),
        "the summary message",
    )
    summary = next(m.message for m in client.messages if "_plus_one`: " in m.message)
    assert "1 tests need not run" in summary, summary
    assert "1 more depend on it but run anyway for other changes" in summary, summary
    await until(lambda: bool(client.statuses), "reks/status")  # type: ignore[attr-defined]
    status = client.statuses[-1]  # type: ignore[attr-defined]
    # Finer units: the rename touched what two tests ran (test_area imports shapes.py,
    # whose import of `_helper` is a unit of its own it does not read); test_scaled_area
    # runs anyway for the hand edit of `area`, so one is skipped, and the summary says so.
    assert status.affected == 2 and status.skipped == 1
    assert list(status.affectedTests) == [
        "tests/test_shapes.py::test_area",
        "tests/test_shapes.py::test_scaled_area",
    ]

    # The code action on a diagnostic runs the affected tests.
    diagnostic = next(
        d for d in client.diagnostics[shapes_tests.as_uri()] if d.range.start.line == area
    )
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=shapes_tests.as_uri()),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    # (pytest-lsp's client structures a CodeAction carrying a command as a Command, so
    # only the title is compared; the command's argument is the root the diagnostic names.)
    assert "Run affected tests" in [a.title for a in actions or []]
    root = diagnostic.data["root"]  # type: ignore[index]
    assert Path(root) == e2e_project.resolve()
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="reks.runAffectedTests", arguments=[root])
    )
    assert result["roots"][0]["exitCode"] == 0, result
    assert "2 passed" in result["roots"][0]["summary"], result
    await until(
        lambda: (
            not messages(client, shapes_tests.as_uri())
            and not messages(client, util_tests.as_uri())
        ),
        "diagnostics to go away",
    )
    await until(lambda: client.statuses[-1].affected == 0, "status")  # type: ignore[attr-defined]


async def test_refactor_on_save_is_recorded_as_a_refactoring(
    save_client: LanguageClient, unused_import_project: Path
) -> None:
    client = save_client
    e2e_project = unused_import_project
    util = e2e_project / "pkg/util.py"
    uri = util.as_uri()
    text = util.read_text()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=text
            )
        )
    )
    edits = await client.text_document_will_save_wait_until_async(
        types.WillSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            reason=types.TextDocumentSaveReason.Manual,
        )
    )
    assert edits, "organize imports should drop the unused imports"
    new = apply_text_edits(text, list(edits))
    assert "import os" not in new and "from pkg import other" not in new
    # The editor applies the edits to the buffer, then writes it.
    change_document(client, util, 2, new)
    util.write_text(new)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    tests_uri = (e2e_project / "tests/test_util.py").as_uri()
    expected = "skipped: affected only by organize imports of pkg/util.py"
    await until(lambda: expected in messages(client, tests_uri).values(), "the on-save diagnostics")
    assert selected(e2e_project) == {}


async def test_status_is_right_before_the_refactored_buffers_are_saved(
    client: LanguageClient, e2e_project: Path
) -> None:
    """An editor applies a rename to its buffers (opening the files it touches) and saves
    later: the REKS status is the rename's from that moment, not a hand edit's."""
    util = e2e_project / "pkg/util.py"
    edit = await rename_at(client, util, "def _helper", 4, "_plus_one")
    assert edit is not None
    before = {p: p.read_text() for p in e2e_project.rglob("*.py")}
    applied = apply_workspace_edit(edit)  # computes the new texts on disk ...
    for path in applied:  # ... which go to the buffers instead: the disk keeps the old text
        new = path.read_text()
        path.write_text(before[path])
        open_document(client, path, before[path])
        change_document(client, path, 2, new)
    await until(
        lambda: any(s.skipped for s in client.statuses),  # type: ignore[attr-defined]
        "the rename's status",
    )
    status = client.statuses[-1]  # type: ignore[attr-defined]
    assert status.affected == 0 and status.skipped >= 2, status
    assert all(p.read_text() == before[p] for p in applied)  # nothing was saved


async def test_a_saved_rename_shows_no_hand_edit_status_before_its_own(
    client: LanguageClient, e2e_project: Path
) -> None:
    """An editor that writes and saves a rename's files: the save refreshes the status,
    and done before the rename is announced (its provenance is computed on a thread
    first), the rename's files were shown as a hand edit, tests to run, for a moment."""
    util = e2e_project / "pkg/util.py"
    edit = await rename_at(client, util, "def _helper", 4, "_plus_one")
    assert edit is not None
    await until(lambda: bool(client.statuses), "the status at start")  # type: ignore[attr-defined]
    mark = len(client.statuses)  # type: ignore[attr-defined]
    saved(client, apply_workspace_edit(edit))
    await until(
        lambda: any(s.skipped for s in client.statuses[mark:]),  # type: ignore[attr-defined]
        "the rename's status",
    )
    shown = client.statuses[mark:]  # type: ignore[attr-defined]
    first_rename = next(i for i, s in enumerate(shown) if s.skipped)
    assert [s.affected for s in shown[: first_rename + 1]] == [0] * (first_rename + 1), shown


async def test_run_affected_tests_counts_and_shows_the_failures(
    client: LanguageClient, e2e_project: Path
) -> None:
    """Issue 16, item 8: the result says how many passed and failed, and each failing test
    gets an Error on its ``def`` line (what the Problems panel and a quickfix list show)."""
    shapes_tests = e2e_project / "tests/test_shapes.py"
    shapes_tests.write_text(shapes_tests.read_text().replace("== 12", "== 13"))
    saved(client, [shapes_tests])
    # The status lists each located test for a test view (issue 16, item 7)
    statuses = client.statuses  # type: ignore[attr-defined]
    await until(lambda: bool(statuses) and statuses[-1].affected > 0, "the tests that must run")
    status = statuses[-1]
    listed = {t.nodeid: (t.uri, t.line, t.state) for t in status.tests}
    scaled = (shapes_tests.as_uri(), line_of(shapes_tests, "def test_scaled_area():"), "affected")
    assert listed.get("tests/test_shapes.py::test_scaled_area") == scaled, (status, listed)
    assert len([t for t in listed.values() if t[2] == "affected"]) == status.affected, listed
    root = str(e2e_project.resolve())
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="reks.runAffectedTests", arguments=[root])
    )
    run = result["roots"][0]
    assert run["failed"] == 1, result
    assert result["message"] == f"{run['passed']} passed, 1 failed", result
    failure = run["failures"][0]
    scaled = line_of(shapes_tests, "def test_scaled_area():")
    assert failure["nodeid"] == "tests/test_shapes.py::test_scaled_area"
    assert (failure["uri"], failure["line"]) == (shapes_tests.as_uri(), scaled)
    assert failure["message"].endswith("assert 12 == 13"), failure

    def failed_lines() -> list[int]:
        return [
            d.range.start.line
            for d in client.diagnostics.get(shapes_tests.as_uri(), [])
            if d.source == "reks" and d.severity == types.DiagnosticSeverity.Error
        ]

    await until(lambda: failed_lines() == [scaled], "an Error on the failing test")
    shapes_tests.write_text(shapes_tests.read_text().replace("== 13", "== 12"))
    saved(client, [shapes_tests])
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="reks.runAffectedTests", arguments=[root])
    )
    assert result["message"] == "1 passed, 0 failed", result
    await until(lambda: failed_lines() == [], "the failure to go away once the test passes")
