"""The feature contract: what a feature of the server is, and what it may use of the server.

A ``Feature`` serves some LSP methods and commands of its own (``methods``, ``commands``)
and takes part in the methods every feature may care about through lifecycle hooks, each a
no-op by default: ``initialized``, ``folder_added``/``folder_removed``, ``document_changed``,
``files_changed`` (on disk: watched files, renames, saves), ``files_saved``,
``code_actions``, ``resolve_code_action`` and ``shutdown``. ``server.py`` registers the
features and fans each shared method out to their hooks; a feature never sees another.

A feature talks to the server only through ``Host``: the client connection (``lsp``), the
settings, the refactoring engine, the diagnostics hub, and the ``Project`` of a path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from lsprotocol import types

from lsp_server.lsp.convert import uri_to_path
from lsp_server.refactor.model import RefactoringError

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from lsp_server.lsp.diagnostics import DiagnosticsHub
    from lsp_server.project import Project
    from lsp_server.refactor.engine import RefactorEngine
    from lsp_server.settings import Settings

CommandHandler = Callable[[list[Any]], Awaitable[Any]]
"""A ``workspace/executeCommand`` handler: the command's arguments in, its result out."""


class Host(Protocol):
    """What a feature may use of the server."""

    @property
    def lsp(self) -> LanguageServer:
        """The connection to the client: progress, messages, documents, applyEdit."""

    @property
    def settings(self) -> Settings: ...

    @property
    def engine(self) -> RefactorEngine: ...

    @property
    def diagnostics(self) -> DiagnosticsHub: ...

    def project_for(self, path: str) -> Project:
        """The project (workspace folder) holding ``path``."""

    def projects(self) -> list[Project]:
        """Every workspace folder's project."""

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run ``work`` in the background, keeping it referenced until it is done."""


@dataclass(frozen=True)
class MethodHandler:
    """An LSP method a single feature serves (``textDocument/rename``, ...)."""

    method: str
    handler: Callable[[Any], Any]
    options: Any = None


class Feature:
    """Base class of the server's features; every hook does nothing by default."""

    name: ClassVar[str] = ""
    """Unique; also the key of this feature's diagnostics in the hub."""
    code_action_kinds: ClassVar[tuple[str, ...]] = ()
    """The code action kinds this feature offers (announced in the server's capabilities)."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def project_of(self, uri: str) -> Project | None:
        """The project holding the document ``uri``; None outside every workspace folder
        (or for a URI that is not a file)."""
        try:
            return self.host.project_for(uri_to_path(uri))
        except RefactoringError:
            return None

    def methods(self) -> list[MethodHandler]:
        return []

    def commands(self) -> dict[str, CommandHandler]:
        return {}

    def initialized(self) -> None:
        """The client is ready and the initial workspace folders are known."""

    def folder_added(self, root: str) -> None: ...

    def folder_removed(self, root: str) -> None: ...

    def document_changed(self, uri: str, closed: bool = False) -> None:
        """An open document's text changed (``didOpen``/``didChange``/``didClose``)."""

    def files_changed(self, uris: list[str]) -> None:
        """Files changed on disk (saved, watched, renamed)."""

    def files_saved(self, uris: list[str]) -> None: ...

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        return []

    def owns_code_action(self, action: types.CodeAction) -> bool:
        """Whether ``codeAction/resolve`` of ``action`` is this feature's."""
        return False

    async def resolve_code_action(self, action: types.CodeAction) -> types.CodeAction:
        return action

    def shutdown(self) -> None: ...
