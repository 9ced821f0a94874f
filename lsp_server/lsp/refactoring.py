"""LSP handlers of the refactoring features; ``lsp_server/server.py`` wires them.

Nothing slow runs on the message loop: code actions are listed from the syntax tree;
everything rope does runs on the engine's worker thread and is awaited. ``$/cancelRequest``
cancels the awaiting task, which cancels the job and so rope's task handle.

Applied-refactoring announcements: the server cannot see whether the client applied a
rename or a resolved code action it returned, so each result is kept as *pending* until
the files (editor buffers, else disk) hold exactly its ``files_after``; then it is announced
through ``RefactorEngine.announce_applied`` (see ``lsp_server.refactor.engine``). Edits the
server applies itself through ``workspace/applyEdit`` are announced when the client says
they were applied.
"""

from __future__ import annotations

import ast
import asyncio
import logging
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.jobs import Cancelled, Job
from lsp_server.lsp.convert import offset_at, path_to_uri, position_at, uri_to_path, workspace_edit
from lsp_server.lsp.progress import ClientProgress
from lsp_server.refactor.actions import Offer, offers_at
from lsp_server.refactor.engine import PrepareResult
from lsp_server.refactor.model import (
    FileEdit,
    RefactoringError,
    RefactoringResult,
    RefactorRequest,
)
from lsp_server.refactor.rope_thread import RopeJob
from lsp_server.rts.provenance import Provenance

if TYPE_CHECKING:
    from lsp_server.server import ReksServer

log = logging.getLogger(__name__)

T = TypeVar("T")

APPLY_COMMAND = "reks.refactor.apply"
"""Compute a code action and apply it with ``workspace/applyEdit`` (clients without resolve)."""
MOVE_COMMAND = "reks.refactor.move"
"""Move, with the destination as argument (``{"destination": ...}``), prompted by the client."""
COMMANDS = [APPLY_COMMAND, MOVE_COMMAND]

PENDING_SECONDS = 300.0


def failed(message: str) -> JsonRpcException:
    """A request error the client shows to the user."""
    return JsonRpcException(message, code=types.LSPErrorCodes.RequestFailed)


# -- pending announcements ------------------------------------------------------------------
@dataclass
class _Pending:
    root: str
    result: RefactoringResult
    expected: dict[str, str | None]
    deadline: float


@dataclass
class PendingApplications:
    """Results handed to the client, announced once the files show they were applied."""

    items: list[_Pending] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, root: str, result: RefactoringResult) -> None:
        expected = {os.path.join(root, rel): text for rel, text in result.files_after.items()}
        with self.lock:
            self.items.append(_Pending(root, result, expected, time.monotonic() + PENDING_SECONDS))

    def applied(self, server: ReksServer, changed: set[str]) -> list[_Pending]:
        """Pending results with a file in ``changed`` whose files now all hold the expected
        text (removed from the list). Only those are checked: this runs on every keystroke."""
        now = time.monotonic()
        done: list[_Pending] = []
        with self.lock:
            keep: list[_Pending] = []
            for item in self.items:
                touched = not changed.isdisjoint(item.expected)
                if touched and all(
                    _same(current_text(server, p), t) for p, t in item.expected.items()
                ):
                    done.append(item)
                elif item.deadline > now:
                    keep.append(item)
            self.items = keep
        return done


def _same(current: str | None, expected: str | None) -> bool:
    if current is None or expected is None:
        return current is expected
    return current.replace("\r\n", "\n") == expected.replace("\r\n", "\n")


def current_text(server: ReksServer, path: str) -> str | None:
    """Text of ``path``: the open document, else the disk (None if it does not exist)."""
    doc = server.workspace.text_documents.get(path_to_uri(path))
    if doc is not None:
        return doc.source
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def check_pending(server: ReksServer, changed: set[str]) -> None:
    """Announce the pending results that the change of the paths ``changed`` completed."""
    if not server.pending.items:
        return
    real = changed | {os.path.realpath(p) for p in changed}
    for item in server.pending.applied(server, real):
        announce(server, item.root, item.result)


def announce(server: ReksServer, root: str, result: RefactoringResult) -> None:
    """The edit reached the files: tell the engine's listeners (on the message loop, in
    order) and the user's log. The Provenance (units and checksums of every touched file)
    is computed first on a thread of its own, so neither the loop nor rope waits for it."""
    loop = asyncio.get_running_loop()

    def announced(future: asyncio.Future[Provenance]) -> None:
        try:
            provenance = future.result()
        except Exception:
            log.exception("provenance of an applied refactoring failed")
            return
        server.engine.announce_applied(root, provenance)
        server.window_log_message(
            types.LogMessageParams(
                type=types.MessageType.Info, message=f"reks: applied {provenance.description}"
            )
        )

    future = loop.run_in_executor(_PROVENANCE, lambda: result.provenance)
    future.add_done_callback(announced)


_PROVENANCE = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reks-provenance")
"""One thread, so announcements keep the order in which edits were applied."""


# -- running on the worker -------------------------------------------------------------------
async def _await(future: Future[T], job: Job) -> T:
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        job.cancel()  # reaches rope's TaskHandle
        raise
    except Cancelled as exc:
        raise JsonRpcException("cancelled", code=types.LSPErrorCodes.RequestCancelled) from exc
    except RefactoringError as exc:
        raise failed(str(exc)) from exc


async def compute(server: ReksServer, request: RefactorRequest) -> RefactoringResult:
    job = RopeJob()
    try:
        future = server.engine.submit(request, job)
    except RefactoringError as exc:
        raise failed(str(exc)) from exc
    result: RefactoringResult = await _await(future, job)
    if result.skipped_files:
        names = ", ".join(
            f"{os.path.relpath(s.path, _root_of(server, request.path))} ({s.reason})"
            for s in result.skipped_files
        )
        server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"reks: not searched: {names}"
            )
        )
    return result


def _root_of(server: ReksServer, path: str) -> str:
    try:
        return server.engine.workspace_for(path).root
    except RefactoringError:
        return os.path.dirname(path)


def _text(server: ReksServer, uri: str) -> tuple[str, str]:
    path = uri_to_path(uri)
    text = current_text(server, path)
    if text is None:
        raise failed(f"{path} does not exist")
    return path, text


def _encoding(server: ReksServer) -> str:
    encoding = server.workspace.position_encoding
    return str(getattr(encoding, "value", encoding) or "utf-16")


def to_edit(
    server: ReksServer, result: RefactoringResult, include_renames: bool = True
) -> types.WorkspaceEdit:
    def version_of(uri: str) -> int | None:
        doc = server.workspace.text_documents.get(uri)
        return doc.version if doc is not None else None

    try:
        return workspace_edit(
            result.edits,
            server.client_capabilities,
            version_of,
            _encoding(server),
            include_renames=include_renames,
        )
    except RefactoringError as exc:
        raise failed(str(exc)) from exc


# -- document sync -----------------------------------------------------------------------------
def document_changed(server: ReksServer, uri: str, closed: bool = False) -> None:
    try:
        path = uri_to_path(uri)
    except RefactoringError:
        return
    if closed:
        server.engine.set_overlay(path, None)
    else:
        server.engine.set_overlay(path, server.workspace.get_text_document(uri).source)
    server.syntax_trees.pop(uri, None)
    check_pending(server, {path})


def files_changed(server: ReksServer, uris: list[str]) -> None:
    paths: set[str] = set()
    for uri in uris:
        try:
            path = uri_to_path(uri)
        except RefactoringError:
            continue
        server.engine.mark_changed(path)
        paths.add(path)
    check_pending(server, paths)


# -- workspace folders and pre-warm -------------------------------------------------------------
def workspace_roots(server: ReksServer) -> list[str]:
    roots = [uri_to_path(f.uri) for f in server.workspace.folders.values()]
    if not roots and server.workspace.root_path:
        roots = [server.workspace.root_path]
    return roots


async def prewarm(server: ReksServer, root: str) -> None:
    """Parse every module of ``root`` in the background, reporting throttled ``$/progress``."""
    workspace = server.engine.add_root(root)
    progress = await ClientProgress.begin(
        server, "reks: indexing", message=os.path.basename(root), cancellable=False, unit="modules"
    )
    job = progress.job
    server.prewarm_jobs.append(job)
    try:
        await asyncio.wrap_future(workspace.prewarm(job))
    except Cancelled:
        pass
    except Exception:
        log.exception("pre-warm of %s failed", root)
    finally:
        progress.end("ready")


# -- code actions --------------------------------------------------------------------------------
def _tree(server: ReksServer, uri: str, text: str) -> ast.Module | None:
    cached = server.syntax_trees.get(uri)
    if cached is not None and cached[0] == text:
        return cached[1]
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        tree = None
    server.syntax_trees[uri] = (text, tree)
    return tree


def _client_resolves_edits(server: ReksServer) -> bool:
    caps = server.client_capabilities
    action = caps.text_document.code_action if caps.text_document else None
    resolve = action.resolve_support if action else None
    return bool(resolve and "edit" in resolve.properties)


def _offer_data(uri: str, offer: Offer, text: str, encoding: str, names: Any) -> dict[str, Any]:
    args = dict(offer.args)
    if offer.default_name is not None:
        args[offer.name_arg] = getattr(names, offer.default_name)
    return {
        "uri": uri,
        "action": offer.action,
        "position": _pos(position_at(text, offer.offset, encoding)),
        "end": None if offer.end is None else _pos(position_at(text, offer.end, encoding)),
        "args": args,
        "text_length": len(text),
    }


def _pos(position: types.Position) -> dict[str, int]:
    return {"line": position.line, "character": position.character}


def code_actions(server: ReksServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """Applicable refactorings from the syntax tree; no rope work (see module docstring)."""
    uri = params.text_document.uri
    doc = server.workspace.get_text_document(uri)
    text = doc.source
    tree = _tree(server, uri, text)
    if tree is None:
        return []
    encoding = _encoding(server)
    start = offset_at(text, params.range.start, encoding)
    end = offset_at(text, params.range.end, encoding)
    only = list(params.context.only or [])
    enabled = server.settings.actions
    resolves = _client_resolves_edits(server)
    out: list[types.CodeAction] = []
    for offer in offers_at(text, start, end if end > start else None, tree):
        if not getattr(enabled, offer.setting, True):
            continue
        if only and not any(offer.kind == k or offer.kind.startswith(f"{k}.") for k in only):
            continue
        data = _offer_data(uri, offer, text, encoding, server.settings.defaultNames)
        if offer.needs:
            data["args"].update({need: None for need in offer.needs})
            command = types.Command(title=offer.title, command=MOVE_COMMAND, arguments=[data])
            out.append(types.CodeAction(title=offer.title, kind=offer.kind, command=command))
        elif resolves:
            out.append(types.CodeAction(title=offer.title, kind=offer.kind, data=data))
        else:
            command = types.Command(title=offer.title, command=APPLY_COMMAND, arguments=[data])
            out.append(types.CodeAction(title=offer.title, kind=offer.kind, command=command))
    return out


def _request(server: ReksServer, data: dict[str, Any]) -> RefactorRequest:
    try:
        uri = str(data["uri"])
        path, text = _text(server, uri)
        encoding = _encoding(server)
        start = offset_at(text, types.Position(**data["position"]), encoding)
        end = data.get("end")
        end_offset = None if end is None else offset_at(text, types.Position(**end), encoding)
        return RefactorRequest(str(data["action"]), path, start, end_offset, dict(data["args"]))
    except (KeyError, TypeError) as exc:
        raise failed(f"malformed refactoring arguments: {exc}") from exc


async def resolve_code_action(server: ReksServer, action: types.CodeAction) -> types.CodeAction:
    if not isinstance(action.data, dict):
        return action
    request = _request(server, action.data)
    result = await compute(server, request)
    action.edit = to_edit(server, result)
    server.pending.add(_root_of(server, request.path), result)
    return action


async def execute_refactoring(server: ReksServer, arguments: list[Any] | None) -> None:
    """``reks.refactor.apply`` / ``reks.refactor.move``: compute, then ``workspace/applyEdit``."""
    if not arguments or not isinstance(arguments[0], dict):
        raise failed("missing refactoring arguments")
    data = dict(arguments[0])
    # Lua clients turn an empty table into a JSON list: read `[]` as "no arguments".
    args = data.get("args") or {}
    if not isinstance(args, dict):
        raise failed("refactoring arguments must be an object")
    if "destination" in data:  # the client fills in the destination at the top level
        args = {**args, "destination": data.pop("destination")}
    data["args"] = args
    if data.get("action") == "move" and not args.get("destination"):
        raise failed("move needs a destination (a module path or dotted name)")
    request = _request(server, data)
    result = await compute(server, request)
    edit = to_edit(server, result)
    response = await server.workspace_apply_edit_async(
        types.ApplyWorkspaceEditParams(edit=edit, label=result.provenance.description)
    )
    if not response.applied:
        raise failed(f"the editor did not apply the edit: {response.failure_reason or 'refused'}")
    announce(server, _root_of(server, request.path), result)


# -- rename ----------------------------------------------------------------------------------------
async def prepare_rename(
    server: ReksServer, params: types.PrepareRenameParams
) -> types.PrepareRenamePlaceholder | None:
    path, text = _text(server, params.text_document.uri)
    encoding = _encoding(server)
    offset = offset_at(text, params.position, encoding)
    job = RopeJob()
    try:
        found: PrepareResult = await _await(
            server.engine.worker.submit(
                lambda: server.engine.prepare_rename(path, offset), job=job
            ),
            job,
        )
    except RefactoringError as exc:
        raise failed(str(exc)) from exc
    return types.PrepareRenamePlaceholder(
        range=types.Range(
            position_at(text, found.start, encoding), position_at(text, found.end, encoding)
        ),
        placeholder=found.name,
    )


async def rename(server: ReksServer, params: types.RenameParams) -> types.WorkspaceEdit:
    path, text = _text(server, params.text_document.uri)
    offset = offset_at(text, params.position, _encoding(server))
    request = RefactorRequest("rename", path, offset, args={"new_name": params.new_name})
    result = await compute(server, request)
    edit = to_edit(server, result)
    server.pending.add(_root_of(server, path), result)
    return edit


async def will_rename_files(
    server: ReksServer, params: types.RenameFilesParams
) -> types.WorkspaceEdit | None:
    """Update imports for files (modules or packages) the editor is about to rename."""
    edits: list[Any] = []
    touched: set[str] = set()
    for item in params.files:
        old_path, new_path = uri_to_path(item.old_uri), uri_to_path(item.new_uri)
        is_module = old_path.endswith(".py") or os.path.isfile(
            os.path.join(old_path, "__init__.py")
        )
        if not is_module:
            continue
        target = old_path if old_path.endswith(".py") else os.path.join(old_path, "__init__.py")
        request = RefactorRequest("rename-module", target, 0, args={"new_path": new_path})
        result = await compute(server, request)
        for edit in result.edits:
            if isinstance(edit, FileEdit):
                if edit.path in touched:
                    raise failed("rename these files one at a time")
                touched.add(edit.path)
                edits.append(edit)
        server.pending.add(_root_of(server, target), result)
    if not edits:
        return None
    return to_edit(server, RefactoringResult(edits, Provenance("rename-files", "")), False)


# -- refactor on save ------------------------------------------------------------------------------
ON_SAVE_ACTIONS = {"organizeImports": "organize-imports"}
ON_SAVE_TIMEOUT = 1.5


async def will_save_wait_until(
    server: ReksServer, params: types.WillSaveTextDocumentParams
) -> list[types.TextEdit]:
    """Configured behaviour-preserving refactorings of the saved file (``onSave`` setting)."""
    uri = params.text_document.uri
    if not uri.endswith(".py") or not server.settings.onSave:
        return []
    path, text = _text(server, uri)
    edits: list[types.TextEdit] = []
    for name in server.settings.onSave:
        action = ON_SAVE_ACTIONS.get(name)
        if action is None:
            continue
        job = RopeJob()
        try:
            future = server.engine.submit(RefactorRequest(action, path, 0), job)
            result: RefactoringResult = await asyncio.wait_for(_await(future, job), ON_SAVE_TIMEOUT)
        except (JsonRpcException, asyncio.TimeoutError, RefactoringError):
            job.cancel()
            continue  # saving must never fail because a refactoring could not run
        own = [e for e in result.edits if isinstance(e, FileEdit) and e.path == path]
        if len(own) != len(result.edits) or not own:
            continue
        from lsp_server.lsp.convert import text_edits

        edits = text_edits(text, own[0].new_text, _encoding(server))
        server.pending.add(_root_of(server, path), result)
        break  # one refactoring per save keeps the edits consistent with the buffer
    return edits
