"""The real server announces what its registered features serve: every command, every
code action kind, the methods a single feature serves, and resolve support."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from lsp_server.lsp.features import FEATURES
from lsp_server.project.files import exclusion_globs

CONFIG = ClientServerConfig(server_command=[sys.executable, "-m", "lsp_server"])


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient, tmp_path: Path):
    yield
    await lsp_client.shutdown_session()


async def test_capabilities_come_from_the_features(client: LanguageClient, tmp_path: Path) -> None:
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=tmp_path.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="p")],
        )
    )
    caps = result.capabilities
    # What each feature class declares, read without a server (no instance needed).
    declared_kinds = {k for feature in FEATURES for k in feature.code_action_kinds}
    assert caps.execute_command_provider is not None
    commands = set(caps.execute_command_provider.commands)
    assert {
        "reks.refactor.apply",
        "reks.refactor.move",
        "reks.runAffectedTests",
        "reks.analyseWeakTests",
        "reks.explainWeakTests",
    } <= commands
    assert isinstance(caps.code_action_provider, types.CodeActionOptions)
    assert caps.code_action_provider.resolve_provider
    kinds = [
        str(k.value if hasattr(k, "value") else k)
        for k in caps.code_action_provider.code_action_kinds or []
    ]
    assert set(kinds) == {str(getattr(k, "value", k)) for k in declared_kinds}
    assert len(kinds) == len(set(kinds))  # a kind two features offer is announced once
    assert caps.rename_provider
    assert caps.workspace and caps.workspace.file_operations
    assert caps.workspace.file_operations.will_rename is not None
    sync = caps.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions) and sync.will_save_wait_until
    assert caps.code_lens_provider is not None  # field-exhaustive tests on classes
    assert {"reks.factorTest", "reks.generateFieldExhaustiveTests"} <= commands


async def test_clients_get_what_the_server_owns(client: LanguageClient, tmp_path: Path) -> None:
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim"),
            root_uri=tmp_path.as_uri(),
            initialization_options={"defaultNames": {"extractedMethod": "helper"}},
        )
    )
    experimental = result.capabilities.experimental
    assert isinstance(experimental, dict)
    served = experimental["reks"]
    assert served["defaultNames"]["extractedMethod"] == "helper"
    assert set(served["exclusions"]["globs"]) == set(exclusion_globs())
    by_command = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="reks.clientConfiguration", arguments=[])
    )
    assert by_command == served
