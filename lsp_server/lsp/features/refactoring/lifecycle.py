"""A refactoring's way from request to announcement: computed on the engine's worker,
turned into a ``WorkspaceEdit``, kept *pending* until the files show the client applied it,
then announced through ``RefactorEngine.announce_applied``.

The server cannot see whether the client applied a rename or a resolved code action it
returned, so each result is pending until the files (editor buffers, else disk) hold exactly
its ``files_after``. Edits the server applies itself through ``workspace/applyEdit`` are
announced when the client says they were applied.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.jobs import Cancelled, Job
from lsp_server.lsp.convert import path_to_uri, uri_to_path, workspace_edit
from lsp_server.project.files import MAX_ANALYSED_CHARS
from lsp_server.refactor.apply import decode_file
from lsp_server.refactor.model import (
    FileEdit,
    RefactoringError,
    RefactoringResult,
    RefactorRequest,
)
from lsp_server.refactor.rope_thread import RopeJob
from lsp_server.rts.provenance import Provenance

if TYPE_CHECKING:
    from lsp_server.lsp.features.refactoring.feature import RefactoringFeature

log = logging.getLogger(__name__)

T = TypeVar("T")

PENDING_SECONDS = 300.0
MAX_ARGUMENT_CHARS = 1_000
"""A name, destination or other string argument longer than this is refused."""


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

    def awaits(self, path: str, text: str) -> bool:
        """Whether ``path`` holds, as ``text``, its part of a result handed out that is not
        yet in all its files (one the editor declined holds another text: it does not count)."""
        now = time.monotonic()
        with self.lock:
            return any(
                item.deadline > now and _same(text, item.expected.get(p, None))
                for item in self.items
                for p in {path, os.path.realpath(path)}
                if p in item.expected
            )

    def applied(self, feature: RefactoringFeature, changed: set[str]) -> list[_Pending]:
        """Pending results with a file in ``changed`` whose files now all hold the expected
        text (removed from the list). Only those are checked: this runs on every keystroke."""
        now = time.monotonic()
        done: list[_Pending] = []
        with self.lock:
            keep: list[_Pending] = []
            for item in self.items:
                touched = not changed.isdisjoint(item.expected)
                if touched and all(
                    _same(current_text(feature, p), t) for p, t in item.expected.items()
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


def current_text(feature: RefactoringFeature, path: str) -> str | None:
    """Text of ``path``: the open document, else the disk (None if it does not exist)."""
    doc = feature.host.lsp.workspace.text_documents.get(path_to_uri(path))
    if doc is not None:
        return doc.source
    try:
        with open(path, "rb") as handle:
            return decode_file(path, handle.read())
    except OSError:
        return None


def check_pending(feature: RefactoringFeature, changed: set[str]) -> None:
    """Announce the pending results that the change of the paths ``changed`` completed."""
    if not feature.pending.items:
        return
    real = changed | {os.path.realpath(p) for p in changed}
    for item in feature.pending.applied(feature, real):
        announce(feature, item.root, item.result)


def announce(feature: RefactoringFeature, root: str, result: RefactoringResult) -> None:
    """The edit reached the files: tell the engine's listeners (on the message loop, in
    order) and the user's log. The Provenance (units and checksums of every touched file)
    is computed first on a thread of its own, so neither the loop nor rope waits for it."""
    loop = asyncio.get_running_loop()
    check = bool(feature.host.settings.trustButVerify)
    unsaved = _unsaved(feature, root) if check else {}

    def provenance_and_verdict() -> tuple[Provenance, str | None]:
        # The trust checks are loaded with the first applied task, not with the server, and
        # here on a thread: the listeners then find them loaded (they run on the loop).
        import lsp_server.trust.verification  # noqa: F401
        from lsp_server.trust.task_listener import verdict

        provenance = result.provenance
        return provenance, verdict(root, provenance, unsaved) if check else None

    announcements = feature.host.engine.announcements

    def announced(future: asyncio.Future[tuple[Provenance, str | None]]) -> None:
        try:
            provenance, demoted = future.result()
        except Exception:
            log.exception("provenance of an applied refactoring failed")
            announcements.ended(root, announced=False)
            return
        # Saves of these files wait for ``ended``: it must come whatever the listeners do,
        # and a failed announcement leaves the saves' own refresh to run.
        made = False
        try:
            feature.host.engine.announce_applied(root, provenance)
            made = True
        finally:
            announcements.ended(root, announced=made)
        feature.host.lsp.window_log_message(
            types.LogMessageParams(
                type=types.MessageType.Info, message=f"reks: applied {provenance.description}"
            )
        )
        if demoted is not None:
            feature.host.lsp.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning,
                    message=f"reks: {provenance.description} is treated as a hand edit, not a "
                    f"trusted refactoring: {demoted}. Its tests will run; check the change.",
                )
            )

    announcements.started(root)
    future = loop.run_in_executor(_PROVENANCE, provenance_and_verdict)
    future.add_done_callback(announced)


def _unsaved(feature: RefactoringFeature, root: str) -> dict[str, str]:
    """Root-relative path -> text of the editor's buffers under ``root`` (the engine's
    overlays), for the checks that read the whole project."""
    workspace = feature.host.engine.workspaces.get(os.path.realpath(root))
    if workspace is None:
        return {}
    return {workspace.relpath(p): t for p, t in workspace.overlays().items()}


_PROVENANCE = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reks-provenance")
"""One thread, so announcements keep the order in which edits were applied."""


# -- running on the worker -------------------------------------------------------------------
async def await_job(future: Future[T], job: Job) -> T:
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        job.cancel()  # reaches rope's TaskHandle
        raise
    except Cancelled as exc:
        raise JsonRpcException("cancelled", code=types.LSPErrorCodes.RequestCancelled) from exc
    except RefactoringError as exc:
        raise failed(str(exc)) from exc


async def compute(feature: RefactoringFeature, request: RefactorRequest) -> RefactoringResult:
    for name, value in request.args.items():
        if isinstance(value, str) and len(value) > MAX_ARGUMENT_CHARS:
            raise failed(f"the {name} is {len(value):,} characters long: not a usable value")
    job = RopeJob()
    try:
        future = feature.host.engine.submit(request, job)
    except RefactoringError as exc:
        raise failed(str(exc)) from exc
    result: RefactoringResult = await await_job(future, job)
    if result.skipped_files:
        names = ", ".join(
            f"{os.path.relpath(s.path, root_of(feature, request.path))} ({s.reason})"
            for s in result.skipped_files
        )
        feature.host.lsp.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"reks: not searched: {names}"
            )
        )
    return result


def too_large(feature: RefactoringFeature, uri: str, text: str) -> bool:
    """Whether ``text`` is above the size reks analyses; says so once per document."""
    if len(text) <= MAX_ANALYSED_CHARS:
        feature.declined.discard(uri)
        return False
    if uri not in feature.declined:
        feature.declined.add(uri)
        feature.host.lsp.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=f"reks: {uri_to_path(uri)} has {len(text):,} characters, more than the"
                f" {MAX_ANALYSED_CHARS:,} reks analyses: no refactoring is offered in it",
            )
        )
    return True


def root_of(feature: RefactoringFeature, path: str) -> str:
    try:
        return feature.host.engine.workspace_for(path).root
    except RefactoringError:
        return os.path.dirname(path)


def text_of(feature: RefactoringFeature, uri: str) -> tuple[str, str]:
    path = uri_to_path(uri)
    text = current_text(feature, path)
    if text is None:
        raise failed(f"{path} does not exist")
    if len(text) > MAX_ANALYSED_CHARS:
        raise failed(
            f"{path} has {len(text):,} characters, more than the {MAX_ANALYSED_CHARS:,}"
            " reks refactors"
        )
    return path, text


def encoding_of(feature: RefactoringFeature) -> str:
    encoding = feature.host.lsp.workspace.position_encoding
    return str(getattr(encoding, "value", encoding) or "utf-16")


async def to_edit(
    feature: RefactoringFeature, result: RefactoringResult, include_renames: bool = True
) -> types.WorkspaceEdit:
    """The client's edit for ``result``. The versions of the open documents are read on
    the message loop (they must be those the edit was computed against); the conversion,
    a diff of every changed file, runs on a thread, so a rename of thousands of uses
    does not hold up the requests behind it."""
    documents = feature.host.lsp.workspace.text_documents
    versions: dict[str, int | None] = {}
    for edit in result.edits:
        if isinstance(edit, FileEdit):
            uri = path_to_uri(edit.path)
            doc = documents.get(uri)
            versions[uri] = doc.version if doc is not None else None
    caps = feature.host.lsp.client_capabilities
    encoding = encoding_of(feature)
    try:
        return await asyncio.to_thread(
            workspace_edit,
            result.edits,
            caps,
            versions.get,
            encoding,
            include_renames=include_renames,
            uncertain=result.uncertain,
        )
    except RefactoringError as exc:
        raise failed(str(exc)) from exc
