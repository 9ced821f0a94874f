"""The reks language server: pygls wiring only.

``ReksServer`` is the ``Host`` every feature is given (``lsp_server.lsp.feature``): the
client connection, the settings, the refactoring engine, the diagnostics hub and one
``Project`` per workspace folder. ``create_server`` registers the features of
``lsp_server.lsp.features``: the LSP methods and commands each serves alone, and the
shared methods (document sync, code actions, workspace folders, shutdown) fanned out to
every feature's hooks. Logic lives in the features and the packages below them.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, cast

from lsprotocol import types
from pygls.lsp.server import LanguageServer

import lsp_server
from lsp_server.lsp.connection import HeaderCheckedStdin, ReksProtocol, plain_errors
from lsp_server.lsp.convert import uri_to_path
from lsp_server.lsp.diagnostics import DiagnosticsHub
from lsp_server.lsp.feature import CommandHandler, Feature
from lsp_server.lsp.features import FEATURES
from lsp_server.lsp.stdin_reader import RawLines, serve_stdio
from lsp_server.project import Project
from lsp_server.refactor.process_engine import server_engine
from lsp_server.settings import Settings


class ReksServer(LanguageServer):
    """The language server and the ``Host`` of its features."""

    def __init__(self) -> None:
        super().__init__("reks", lsp_server.__version__, protocol_cls=ReksProtocol)
        self.settings = Settings()
        self.engine = server_engine()
        self.diagnostics = DiagnosticsHub(self._publish_diagnostics)
        self.features: list[Feature] = []
        self._projects: dict[str, Project] = {}
        self._background: set[asyncio.Future[Any]] = set()

    @property
    def lsp(self) -> LanguageServer:
        return self

    def project_for(self, path: str) -> Project:
        root = self.engine.workspace_for(path).root
        project = self._projects.get(root)
        if project is None or project.explicit_python != (self.settings.python or None):
            project = self._projects[root] = Project.at(root, self.settings.python)
        return project

    def projects(self) -> list[Project]:
        return [self.project_for(root) for root in list(self._projects)]

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)  # referenced until done, so it is not collected
        task.add_done_callback(self._background.discard)

    def serve_stdio(self) -> int:
        """Serve over stdin/stdout until the client exits or the stream breaks; the exit
        code. Nothing has read ``sys.stdin`` before: its raw stream is read directly."""
        stdin = HeaderCheckedStdin(RawLines(cast(io.BufferedReader, sys.stdin.buffer).raw))
        return serve_stdio(self, stdin, sys.stdout.buffer)

    def add_folder(self, root: str) -> None:
        root = self.engine.add_root(root).root
        self._projects.setdefault(root, Project.at(root, self.settings.python))
        for feature in self.features:
            feature.folder_added(root)

    def remove_folder(self, root: str) -> None:
        for feature in self.features:
            feature.folder_removed(root)
        self._projects.pop(root, None)
        self.diagnostics.clear(root)

    def _publish_diagnostics(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        return [a for feature in self.features for a in await feature.code_actions(params)]

    async def resolve_code_action(self, action: types.CodeAction) -> types.CodeAction:
        for feature in self.features:
            if feature.owns_code_action(action):
                return await feature.resolve_code_action(action)
        return action


def _workspace_roots(ls: ReksServer) -> list[str]:
    roots = [uri_to_path(f.uri) for f in ls.workspace.folders.values()]
    if not roots and ls.workspace.root_path:
        roots = [ls.workspace.root_path]
    return roots


def _each(ls: ReksServer, hook: str, *args: Any) -> None:
    for feature in ls.features:
        getattr(feature, hook)(*args)


def _serving(handler: Callable[[Any], Any], method: str) -> Callable[..., Coroutine[Any, Any, Any]]:
    # pygls awaits coroutine functions only, and reads a handler's signature: each handler
    # gets a plain ``async def`` of its own.
    async def serve(ls: ReksServer, params: Any) -> Any:
        with plain_errors(method):
            result = handler(params)
            return await result if inspect.isawaitable(result) else result

    return serve


def _executing(handler: CommandHandler, name: str) -> Callable[..., Coroutine[Any, Any, Any]]:
    async def execute(ls: ReksServer, *args: Any) -> Any:
        with plain_errors(name):
            return await handler(list(args))

    return execute


def _register(server: ReksServer, feature: Feature) -> None:
    for served in feature.methods():
        server.feature(served.method, served.options)(_serving(served.handler, served.method))
    for name, handler in feature.commands().items():
        server.command(name)(_executing(handler, name))


def create_server(features: Sequence[type[Feature]] = FEATURES) -> ReksServer:
    server = ReksServer()
    server.features = [feature(server) for feature in features]
    for feature in server.features:
        _register(server, feature)
    _serve_lifecycle(server)
    _serve_documents(server)
    _serve_code_actions(server)
    return server


def _serve_lifecycle(server: ReksServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: ReksServer, params: types.InitializeParams) -> None:
        ls.settings.update(params.initialization_options)

    @server.feature(types.INITIALIZED)
    def initialized(ls: ReksServer, params: types.InitializedParams) -> None:
        for root in _workspace_roots(ls):
            ls.add_folder(root)
        _each(ls, "initialized")

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(
        ls: ReksServer, params: types.DidChangeConfigurationParams
    ) -> None:
        ls.settings.update(params.settings)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: ReksServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        for folder in params.event.removed:
            ls.remove_folder(uri_to_path(folder.uri))
        for folder in params.event.added:
            ls.add_folder(uri_to_path(folder.uri))

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: ReksServer, params: None) -> None:
        _each(ls, "shutdown")
        ls.engine.close()


def _serve_documents(server: ReksServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ReksServer, params: types.DidOpenTextDocumentParams) -> None:
        _each(ls, "document_changed", params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ReksServer, params: types.DidChangeTextDocumentParams) -> None:
        _each(ls, "document_changed", params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ReksServer, params: types.DidCloseTextDocumentParams) -> None:
        _each(ls, "document_changed", params.text_document.uri, True)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: ReksServer, params: types.DidSaveTextDocumentParams) -> None:
        _each(ls, "files_changed", [params.text_document.uri])
        _each(ls, "files_saved", [params.text_document.uri])

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: ReksServer, params: types.DidChangeWatchedFilesParams) -> None:
        _each(ls, "files_changed", [change.uri for change in params.changes])

    @server.feature(types.WORKSPACE_DID_RENAME_FILES)
    def did_rename_files(ls: ReksServer, params: types.RenameFilesParams) -> None:
        _each(ls, "files_changed", [u for f in params.files for u in (f.old_uri, f.new_uri)])


def _serve_code_actions(server: ReksServer) -> None:
    kinds = dict.fromkeys(k for f in server.features for k in f.code_action_kinds)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind(k) for k in kinds], resolve_provider=True
        ),
    )
    async def code_action(ls: ReksServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        with plain_errors("codeAction"):
            return await ls.code_actions(params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: ReksServer, params: types.CodeAction) -> types.CodeAction:
        with plain_errors("codeAction/resolve"):
            return await ls.resolve_code_action(params)
