"""The reks language server: pygls wiring only.

Each LSP method is one small function calling into ``lsp_server.lsp.<feature>``. To add a
feature: write its handlers in ``lsp_server/lsp/<feature>.py`` and register them in
``create_server`` with ``@server.feature(...)`` or ``@server.command(...)``; per-workspace
state lives in ``ReksServer.state_for(path)``; applied refactorings are announced through
``server.engine.listeners`` (see ``lsp_server.refactor.engine``).
"""

from __future__ import annotations

import ast
import asyncio
import os
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

import lsp_server
from lsp_server.jobs import Job
from lsp_server.lsp import extreme, refactoring, reks, reneri
from lsp_server.lsp.convert import uri_to_path
from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.workspace import RopeWorkspace
from lsp_server.settings import Settings

CODE_ACTION_KINDS = [
    types.CodeActionKind.RefactorExtract,
    types.CodeActionKind.RefactorInline,
    types.CodeActionKind.RefactorRewrite,
    types.CodeActionKind("refactor.move"),
    types.CodeActionKind.SourceOrganizeImports,
    types.CodeActionKind.QuickFix,
]


@dataclass
class WorkspaceState:
    """What the server keeps for one workspace folder; other features add to ``data``."""

    root: str
    rope: RopeWorkspace
    data: dict[str, Any] = field(default_factory=dict)


class ReksServer(LanguageServer):
    """The language server with its refactoring engine, settings and per-workspace state."""

    def __init__(self) -> None:
        super().__init__("reks", lsp_server.__version__)
        self.engine = RefactorEngine()
        self.settings = Settings()
        self.pending = refactoring.PendingApplications()
        self.syntax_trees: dict[str, tuple[str, ast.Module | None]] = {}
        self.prewarm_jobs: list[Job] = []
        self.states: dict[str, WorkspaceState] = {}
        self.background: set[asyncio.Future[None]] = set()
        """Background tasks (pre-warm), referenced so they are not garbage-collected."""

    def state_for(self, path: str) -> WorkspaceState:
        """The state of the workspace folder holding ``path`` (created on first use)."""
        rope = self.engine.workspace_for(path)
        state = self.states.get(rope.root)
        if state is None:
            state = self.states[rope.root] = WorkspaceState(rope.root, rope)
        return state

    def add_root(self, root: str) -> WorkspaceState:
        rope = self.engine.add_root(root)
        return self.state_for(os.path.join(rope.root, "x"))


def create_server() -> ReksServer:
    server = ReksServer()
    reks.attach(server)

    @server.feature(types.INITIALIZE)
    def initialize(ls: ReksServer, params: types.InitializeParams) -> None:
        ls.settings.update(params.initialization_options)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: ReksServer, params: types.InitializedParams) -> None:
        roots = refactoring.workspace_roots(ls)
        for root in roots:
            ls.add_root(root)
        for root in roots:
            ls.background.add(asyncio.ensure_future(refactoring.prewarm(ls, root)))
        reks.refresh_all(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(
        ls: ReksServer, params: types.DidChangeConfigurationParams
    ) -> None:
        ls.settings.update(params.settings)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: ReksServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        for folder in params.event.removed:
            ls.engine.remove_root(uri_to_path(folder.uri))
        for folder in params.event.added:
            ls.add_root(uri_to_path(folder.uri))
            task = asyncio.ensure_future(refactoring.prewarm(ls, uri_to_path(folder.uri)))
            ls.background.add(task)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ReksServer, params: types.DidOpenTextDocumentParams) -> None:
        refactoring.document_changed(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ReksServer, params: types.DidChangeTextDocumentParams) -> None:
        refactoring.document_changed(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ReksServer, params: types.DidCloseTextDocumentParams) -> None:
        refactoring.document_changed(ls, params.text_document.uri, closed=True)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: ReksServer, params: types.DidSaveTextDocumentParams) -> None:
        refactoring.files_changed(ls, [params.text_document.uri])
        reks.files_saved(ls, [params.text_document.uri])

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: ReksServer, params: types.DidChangeWatchedFilesParams) -> None:
        refactoring.files_changed(ls, [change.uri for change in params.changes])

    @server.feature(types.WORKSPACE_DID_RENAME_FILES)
    def did_rename_files(ls: ReksServer, params: types.RenameFilesParams) -> None:
        uris = [u for f in params.files for u in (f.old_uri, f.new_uri)]
        refactoring.files_changed(ls, uris)

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def prepare_rename(
        ls: ReksServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        return await refactoring.prepare_rename(ls, params)

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    async def rename(ls: ReksServer, params: types.RenameParams) -> types.WorkspaceEdit:
        return await refactoring.rename(ls, params)

    @server.feature(
        types.WORKSPACE_WILL_RENAME_FILES,
        types.FileOperationRegistrationOptions(
            filters=[
                types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*.py")),
                types.FileOperationFilter(
                    pattern=types.FileOperationPattern(
                        glob="**/*", matches=types.FileOperationPatternKind.Folder
                    )
                ),
            ]
        ),
    )
    async def will_rename_files(
        ls: ReksServer, params: types.RenameFilesParams
    ) -> types.WorkspaceEdit | None:
        return await refactoring.will_rename_files(ls, params)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=CODE_ACTION_KINDS, resolve_provider=True),
    )
    def code_action(ls: ReksServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return (
            refactoring.code_actions(ls, params)
            + reks.code_actions(ls, params)
            + reneri.code_actions(ls, params)
        )

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: ReksServer, params: types.CodeAction) -> types.CodeAction:
        if reneri.owns(params):  # "Add assertion" carries its edit already
            return params
        return await refactoring.resolve_code_action(ls, params)

    @server.command(extreme.COMMAND)
    async def analyse_weak_tests(ls: ReksServer, *args: Any) -> dict[str, Any]:
        return await extreme.analyse_weak_tests(ls, list(args))

    @server.command(reneri.COMMAND)
    async def explain_weak_tests(ls: ReksServer, *args: Any) -> dict[str, Any]:
        return await reneri.explain_weak_tests(ls, list(args))

    @server.command(refactoring.APPLY_COMMAND)
    async def apply_refactoring(ls: ReksServer, *args: Any) -> None:
        await refactoring.execute_refactoring(ls, list(args))

    @server.command(reks.COMMAND)
    async def run_affected_tests(ls: ReksServer, *args: Any) -> dict[str, Any]:
        return await reks.run_affected_tests(ls, list(args))

    @server.command(refactoring.MOVE_COMMAND)
    async def move(ls: ReksServer, *args: Any) -> None:
        await refactoring.execute_refactoring(ls, list(args))

    @server.feature(types.TEXT_DOCUMENT_WILL_SAVE_WAIT_UNTIL)
    async def will_save_wait_until(
        ls: ReksServer, params: types.WillSaveTextDocumentParams
    ) -> list[types.TextEdit]:
        return await refactoring.will_save_wait_until(ls, params)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: ReksServer, params: None) -> None:
        for job in ls.prewarm_jobs:
            job.cancel()
        ls.engine.close()

    return server
