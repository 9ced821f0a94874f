"""What the end-to-end tests of every feature share: the real server's command line, a
session opened on a project folder, and a fresh copy of the bundled example project."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Union

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

import lsp_server

SERVER_COMMAND = [sys.executable, "-m", "lsp_server"]
EXAMPLE = Path(lsp_server.__file__).parent / "examples" / "versioned_set"


def copy_example(tmp_path: Path) -> Path:
    root = tmp_path / "versioned_set"
    shutil.copytree(
        EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", ".reks", ".pytest_cache")
    )
    return root


async def open_session(
    client: LanguageClient,
    root: Path,
    *,
    profile: str = "visual-studio-code",
    options: dict[str, Any] | None = None,
) -> None:
    """``initialize`` the server with ``root`` as the only workspace folder."""
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(profile),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=options,
        )
    )


def make_client() -> LanguageClient:
    """pytest-lsp's client, reading code actions as editors do.

    lsprotocol structures any code action that has a ``command`` as a ``Command`` (it
    checks only for the key), losing its kind and arguments; editors check the type."""
    client = pytest_lsp.make_test_lsp_client()
    converter = client.protocol._converter

    def code_action_or_command(obj: Any, _: Any) -> types.Command | types.CodeAction:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)

    converter.register_structure_hook(
        Union[types.Command, types.CodeAction],  # noqa: UP007 - the exact type lsprotocol uses
        code_action_or_command,
    )
    return client


def open_document(client: LanguageClient, path: Path, text: str | None = None) -> None:
    """``didOpen`` of ``path`` with ``text`` (default: what the file holds), version 1."""
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=path.as_uri(),
                language_id="python",
                version=1,
                text=path.read_text() if text is None else text,
            )
        )
    )


def change_document(client: LanguageClient, path: Path, version: int, text: str) -> None:
    """``didChange`` of ``path`` to ``text`` as a whole, as ``version``."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def rename_at(
    client: LanguageClient, path: Path, needle: str, delta: int, new_name: str
) -> types.WorkspaceEdit | None:
    """``textDocument/rename`` at ``delta`` characters into the first ``needle`` of ``path``
    (ASCII files: columns are characters)."""
    text = path.read_text()
    offset = text.index(needle) + delta
    position = types.Position(
        line=text.count("\n", 0, offset), character=offset - text.rfind("\n", 0, offset) - 1
    )
    return await client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            position=position,
            new_name=new_name,
        )
    )


async def until(check: Callable[[], bool], what: str, seconds: float = 30) -> None:
    """Wait (polling every 0.1 s) until ``check()`` holds, or fail saying ``what`` did not come."""
    for _ in range(int(seconds / 0.1)):
        if check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")
