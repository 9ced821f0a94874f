"""The connection to the client, made robust: every request gets an answer, and a stream
that cannot be read any more ends the server (so the editor restarts it).

pygls drops a request whose parameters fail validation without replying (it only logs),
after a malformed header it reads on forever, taking every later message for headers, and
it sends a handler's traceback to the client. ``ReksProtocol`` answers such a request with
``InvalidParams``; ``HeaderCheckedStdin`` turns a line that is not a header where a header
must be into the end of the stream; ``plain_errors`` keeps tracebacks in the server's log.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import time
from collections.abc import Generator, Iterator
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol, lsp_method

from lsp_server.lsp.client_config import client_configuration
from lsp_server.lsp.document_sync import apply_change
from lsp_server.lsp.request_times import RequestTimes
from lsp_server.lsp.stdin_reader import LineReader
from lsp_server.lsp.warm_up import warm_up
from lsp_server.refactor.model import RefactoringError
from lsp_server.settings import Settings

log = logging.getLogger(__name__)

_HEADER = re.compile(rb"[A-Za-z][A-Za-z0-9-]*:[ \t]*[^\r\n]*\r\n")
_CONTENT_LENGTH = re.compile(rb"Content-Length:[ \t]*\d{1,12}\r\n", re.IGNORECASE)


class _Answered:
    """What a request answered with an error while it was read becomes: nothing to run."""

    jsonrpc = "answered"


class ReksProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.times = RequestTimes.from_environment()
        """Server-side times of each request, for benchmarks (None unless asked for)."""

    def receive(self, message: Any, received: float) -> None:
        """Handle a message whose bytes were read at ``received`` (``stdin_reader``)."""
        times = self.times
        if times is not None and getattr(message, "id", None) is not None:
            method = getattr(message, "method", None)
            if method is not None:
                times.read(message.id, method, received)
        self.handle_message(message)

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        if self.times is not None:  # first: a client that has the answer finds the record
            self.times.answered(msg_id, time.monotonic())
        super()._send_response(msg_id, result, error)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        """pygls' initialize, with what the server owns for its clients added under
        ``capabilities.experimental.reks`` once the settings are known."""
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        warm_up(self, burst_only=True)  # the client's first burst comes with the answer
        settings = getattr(self._server, "settings", None)
        if isinstance(settings, Settings):
            experimental = result.capabilities.experimental
            extra = experimental if isinstance(experimental, dict) else {}
            result.capabilities.experimental = {**extra, "reks": client_configuration(settings)}
        return result

    @lsp_method(types.INITIALIZED)
    def lsp_initialized(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' initialized; first, the converters of the messages of every other kind
        an editor sends in its first seconds are made on a thread (``warm_up``; those of
        its first burst were made while ``initialize`` was answered)."""
        threading.Thread(target=_warm_up, args=(self,), name="reks-warm-up", daemon=True).start()
        yield from super().lsp_initialized(*args)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        """pygls' didChange, except that a change older than the document (its version
        not above the document's) is dropped: applied, it would corrupt the buffer that
        every refactoring edits; and that each change is applied by slicing the text
        (``document_sync``), not line by line in Python on the message loop."""
        document = self.workspace.text_documents.get(unquote(params.text_document.uri))
        current = None if document is None else document.version
        version = params.text_document.version
        if current is not None and version is not None and version <= current:
            log.warning(
                "ignored a stale didChange of %s: version %s, the document has version %s",
                params.text_document.uri,
                version,
                current,
            )
            return None
        for change in params.content_changes:  # as pygls does, without its loop per line
            document = self.workspace.text_documents[unquote(params.text_document.uri)]
            apply_change(document, change)
            document.version = version
        handler = self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)
        if handler is not None:
            yield handler, (params,), None
        return None

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "id" not in data or "method" not in data:
                raise  # a notification or a response: there is nobody to answer
            if isinstance(error, JsonRpcInvalidParams):
                error = JsonRpcInvalidParams(
                    f"invalid parameters for {data.get('method')}: they do not match the"
                    " LSP specification"
                )
            self._send_response(data["id"], error=error.to_response_error())
            return _Answered()

    def handle_message(self, message: Any) -> Any:
        if isinstance(message, _Answered):
            return None
        return super().handle_message(message)


def _warm_up(protocol: LanguageServerProtocol) -> None:
    try:
        warm_up(protocol)
    except Exception:  # only a head start: each converter is made when first needed anyway
        log.exception("reks: could not make the message converters ahead")


@contextlib.contextmanager
def plain_errors(method: str) -> Iterator[None]:
    """Errors as the client should see them: a refused request (``RefactoringError``) is
    ``RequestFailed`` with its message; anything unexpected is an ``InternalError`` with a
    one-line message, its traceback in the server's log only (never sent to the client)."""
    try:
        yield
    except (JsonRpcException, RefactoringError) as exc:
        if isinstance(exc, JsonRpcException):
            raise
        raise JsonRpcException(str(exc), code=types.LSPErrorCodes.RequestFailed) from None
    except Exception as exc:
        log.exception("reks: %s failed", method)
        raise JsonRpcInternalError(
            f"reks: {method} failed ({type(exc).__name__}: {exc}); the server log has details"
        ) from None


class HeaderCheckedStdin:
    """Standard input for pygls, whose loop reads headers with ``readline`` and bodies with
    ``read``: a header line that is not a header, or a ``Content-Length`` that is not a
    number, cannot be recovered from (the rest of the stream is out of step), so it reads
    as the end of input and the server stops."""

    def __init__(self, raw: LineReader) -> None:
        self.raw = raw

    def readline(self) -> bytes:
        line = self.raw.readline()
        if line in (b"", b"\r\n"):
            return line
        broken = not _HEADER.fullmatch(line) or (
            line.lower().startswith(b"content-length") and not _CONTENT_LENGTH.fullmatch(line)
        )
        if broken:
            log.error("reks: unreadable message header %r: stopping", line[:80])
            return b""
        return line

    def read(self, size: int) -> bytes:
        return self.raw.read(size)
