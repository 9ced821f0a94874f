"""The real server (``python -m lsp_server``) over stdio, with real editor capability
profiles, on a temporary multi-module project; edits are applied the way an editor would."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.support.geometry import apply_workspace_edit, write_project
from tests.support.lsp import SERVER_COMMAND, open_session
from tests.support.lsp import make_client as make_lsp_client
from tests.support.reks import recorded_template

PROFILES = ["neovim@v0.11.0", "visual-studio-code"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    write_project(root)
    return root


def make_client() -> LanguageClient:
    client = make_lsp_client()
    client.applied_edits = []  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        client.applied_edits.append(params)  # type: ignore[attr-defined]
        touched = apply_workspace_edit(params.edit)
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(uri=p.as_uri(), type=types.FileChangeType.Changed)
                    for p in touched
                ]
            )
        )
        return types.ApplyWorkspaceEditResult(applied=True)

    return client


CONFIG = ClientServerConfig(
    server_command=[sys.executable, "-m", "lsp_server"], client_factory=make_client
)


async def start(
    client: LanguageClient, root: Path, caps: types.ClientCapabilities, options: Any = None
) -> None:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="proj")],
            initialization_options=options,
        )
    )


@pytest_lsp.fixture(config=CONFIG, params=PROFILES)
async def client(lsp_client: LanguageClient, project: Path, request: pytest.FixtureRequest):
    await start(lsp_client, project, client_capabilities(request.param))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG)
async def vscode(lsp_client: LanguageClient, project: Path):
    """One profile (VS Code) for what does not depend on the client's capabilities."""
    await start(lsp_client, project, client_capabilities("visual-studio-code"))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def module_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project of ``shared_vscode``: one copy for the module's tests."""
    root = tmp_path_factory.mktemp("module") / "proj"
    root.mkdir()
    write_project(root)
    return root


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def module_vscode(lsp_client: LanguageClient, module_project: Path):
    await start(lsp_client, module_project, client_capabilities("visual-studio-code"))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def shared_vscode(module_vscode: LanguageClient) -> LanguageClient:
    """One VS Code session (on ``module_project``) for the tests of a module that change
    neither the server's settings nor a file another test reads: a server start is about a
    second of CPU, 3-7 s on a loaded machine. What the server said before this test is
    forgotten, so that a test's checks see only what its own requests brought. Its tests
    run in the module's event loop: ``pytest.mark.asyncio(loop_scope="module")``."""
    module_vscode.messages.clear()
    module_vscode.log_messages.clear()
    module_vscode.diagnostics.clear()
    module_vscode.progress_reports.clear()
    return module_vscode


def no_resolve_capabilities() -> types.ClientCapabilities:
    """VS Code's profile without codeAction/resolve: actions must come as commands."""
    caps = client_capabilities("visual-studio-code")
    assert caps.text_document and caps.text_document.code_action
    caps.text_document.code_action.resolve_support = None
    return caps


@pytest_lsp.fixture(config=CONFIG)
async def plain_client(lsp_client: LanguageClient, project: Path):
    # The first rope task of a session may take more than an editor's save budget on a
    # loaded machine: the tests ask for the refactoring, not for the budget.
    options = {"onSave": ["organizeImports"], "onSaveTimeout": 120}
    await start(lsp_client, project, no_resolve_capabilities(), options)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def example_client(lsp_client: LanguageClient, example: Path):
    """A session on a copy of the bundled example (the root ``example`` fixture)."""
    await open_session(lsp_client, example)
    yield
    await lsp_client.shutdown_session()


__all__ = ["recorded_template"]  # the recorded project of the test-selection tests
