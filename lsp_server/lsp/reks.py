"""LSP glue of REKS: diagnostics on tests after refactorings, "Run affected tests", status.

After every applied refactoring (rename, code action, command, refactor-on-save) the
engine's listener verifies the task (trust but verify), applies the REKS rules and records
the task; then this module publishes, on the ``def`` of each affected test function:

* ``reks.skipped`` (Hint): "skipped: affected only by rename `a` -> `b`": plain dependency
  selection would rerun it, REKS does not;
* ``reks.affected`` (Information): the test must run (a hand edit, a failed test, or a
  refactoring that was treated as a hand edit, saying why), with a code action
  "Run affected tests";

plus a summary (``$/progress`` end message or ``window/showMessage``, setting
``tests.summary``) and the ``reks/status`` notification ``{skipped, affected,
affectedTests, message}`` the VS Code status bar shows.

``reks.runAffectedTests`` runs ``pytest --reks`` in the project's interpreter as a
subprocess with ``$/progress`` and cancellation; the plugin records dependencies, and the
diagnostics are recomputed from the store (they go away once no longer true).

Rules, verification and status run on one background thread, in the order the tasks were
applied, never on the message loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.lsp.convert import path_to_uri, uri_to_path
from lsp_server.lsp.progress import ClientProgress
from lsp_server.lsp.reks_hook import ReksListener, task_summary
from lsp_server.rts.provenance import Provenance
from lsp_server.rts.test_status import TestStatus, locate_tests, test_status

if TYPE_CHECKING:
    from lsp_server.server import ReksServer

log = logging.getLogger(__name__)

COMMAND = "reks.runAffectedTests"
STATUS_NOTIFICATION = "reks/status"
DIAGNOSTICS_KEY = "reks.diagnostics"
SOURCE = "reks"
SKIPPED = "reks.skipped"
AFFECTED = "reks.affected"
_PERCENT = re.compile(r"\[\s*(\d+)%\]\s*$")
_OK_EXIT_CODES = (0, 1, 5)  # passed, some failed, nothing selected


@dataclass
class ReksFeature:
    """Per-server REKS state: the engine listener and the background thread."""

    listener: ReksListener
    executor: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="reks-rules")
    )
    loop: asyncio.AbstractEventLoop | None = None
    last_summary: dict[str, str] = field(default_factory=dict)


def _setting(server: ReksServer, name: str, default: Any) -> Any:
    value: Any = server.settings
    for part in name.split("."):
        value = getattr(value, part, None)
        if value is None:
            return default
    return value if type(value) is type(default) else default


def attach(server: ReksServer) -> ReksFeature:
    """Install the REKS listener on the server's engine (call once in ``create_server``)."""
    listener = ReksListener(lambda: bool(_setting(server, "trustButVerify", True)))
    feature = ReksFeature(listener)
    server.reks = feature  # type: ignore[attr-defined]

    def on_applied(root: str, provenance: Provenance) -> None:
        # Called on the message loop: verification (jedi) and the store work go to the
        # feature's thread, in order.
        with contextlib.suppress(RuntimeError):
            feature.loop = asyncio.get_running_loop()
        feature.executor.submit(_applied_in_background, server, root, provenance)

    server.engine.listeners.append(on_applied)
    return feature


def feature_of(server: ReksServer) -> ReksFeature:
    feature = getattr(server, "reks", None)
    return feature if isinstance(feature, ReksFeature) else attach(server)


def _applied_in_background(server: ReksServer, root: str, provenance: Provenance) -> None:
    feature = feature_of(server)
    try:
        feature.listener(root, provenance)
        outcome = feature.listener.last
        status = test_status(Path(root))
    except Exception:
        log.exception("reks: applying the rules for %s failed", provenance.description)
        return
    if status is None:
        return
    views = _diagnostics(Path(root), status)
    message = task_summary(provenance, outcome)
    loop = feature.loop
    if loop is not None and not loop.is_closed():
        loop.call_soon_threadsafe(_show, server, root, status, views, message)


# -- diagnostics ---------------------------------------------------------------------------
def _diagnostics(root: Path, status: TestStatus) -> dict[str, list[types.Diagnostic]]:
    """Per test-file URI: one diagnostic per test function (parametrized ids grouped)."""
    located = locate_tests(root, sorted({*status.skipped, *status.affected}))
    groups: dict[tuple[str, int], list[str]] = {}
    for nodeid, where in located.items():
        groups.setdefault((where.path, where.line), []).append(nodeid)
    out: dict[str, list[types.Diagnostic]] = {}
    for (path, _), nodeids in sorted(groups.items()):
        where = located[nodeids[0]]
        rng = types.Range(
            start=types.Position(line=where.line - 1, character=where.start),
            end=types.Position(line=where.line - 1, character=where.end),
        )
        must = [n for n in nodeids if n in status.affected]
        if must:
            reasons = sorted({status.affected[n] for n in must})
            notes = sorted({d for n in must for d in status.distrusted.get(n, [])})
            message = f"must run: {'; '.join(reasons[:3])}"
            if notes:
                message += f" ({'; '.join(notes[:2])})"
            diagnostic = types.Diagnostic(
                range=rng,
                message=message,
                severity=types.DiagnosticSeverity.Information,
                source=SOURCE,
                code=AFFECTED,
                data={"root": str(root), "tests": must},
            )
        else:
            tasks = sorted({d for n in nodeids for d in status.skipped[n]})
            diagnostic = types.Diagnostic(
                range=rng,
                message=f"skipped: affected only by {', '.join(tasks[:3])}",
                severity=types.DiagnosticSeverity.Hint,
                source=SOURCE,
                code=SKIPPED,
                data={"root": str(root), "tests": nodeids},
            )
        out.setdefault(path_to_uri(str(root / path)), []).append(diagnostic)
    return out


def _publish(server: ReksServer, uris: Sequence[str]) -> None:
    """For each URI, the union of every feature's ``*.diagnostics`` lists (the convention
    of ``WorkspaceState.data``: ``publishDiagnostics`` replaces a file's whole list)."""
    for uri in uris:
        merged: list[types.Diagnostic] = []
        for state in server.states.values():
            for key, per_uri in state.data.items():
                if key.endswith(".diagnostics") and isinstance(per_uri, dict):
                    merged.extend(per_uri.get(uri, []))
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=merged)
        )


def _show(
    server: ReksServer,
    root: str,
    status: TestStatus,
    views: dict[str, list[types.Diagnostic]],
    message: str | None,
) -> None:
    """On the message loop: replace this root's REKS diagnostics, send status and summary."""
    try:
        state = server.state_for(str(Path(root) / "x"))
    except Exception:
        return
    previous: dict[str, list[types.Diagnostic]] = state.data.get(DIAGNOSTICS_KEY, {})
    state.data[DIAGNOSTICS_KEY] = views
    _publish(server, sorted(set(previous) | set(views)))
    text = message or status.summary()
    feature_of(server).last_summary[root] = text
    server.protocol.notify(
        STATUS_NOTIFICATION,
        {
            "skipped": len(status.skipped),
            "affected": len(status.affected),
            "affectedTests": sorted(status.affected),
            "message": text,
        },
    )
    if message is not None:
        _summary(server, message)


def _summary(server: ReksServer, message: str) -> None:
    mode = _setting(server, "tests.summary", "progress")
    caps = server.client_capabilities
    progress_ok = bool(caps.window and caps.window.work_done_progress)
    if mode == "message" or (mode == "progress" and not progress_ok):
        server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Info, message=message)
        )
    elif mode == "progress":
        task = asyncio.ensure_future(_progress_summary(server, message))
        server.background.add(task)  # referenced until done, so it is not collected
        task.add_done_callback(server.background.discard)


async def _progress_summary(server: ReksServer, message: str) -> None:
    token = f"reks-summary-{uuid.uuid4()}"
    try:
        await server.work_done_progress.create_async(token)
    except Exception:
        return
    server.work_done_progress.begin(token, types.WorkDoneProgressBegin(title="reks"))
    server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))


def refresh(server: ReksServer, root: str, message: str | None = None) -> None:
    """Recompute the test diagnostics of ``root`` in the background (e.g. after a save)."""
    feature = feature_of(server)
    with contextlib.suppress(RuntimeError):
        feature.loop = asyncio.get_running_loop()

    def work() -> None:
        status = test_status(Path(root))
        if status is None:
            return
        views = _diagnostics(Path(root), status)
        loop = feature.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(_show, server, root, status, views, message)

    feature.executor.submit(work)


def files_saved(server: ReksServer, uris: Sequence[str]) -> None:
    """A saved file can make a skipped test affected (or the reverse): refresh its root."""
    roots = set()
    for uri in uris:
        try:
            roots.add(server.state_for(uri_to_path(uri)).root)
        except Exception:
            continue
    for root in sorted(roots):
        refresh(server, root)


def refresh_all(server: ReksServer) -> None:
    for root in list(server.states):
        refresh(server, root)


# -- code actions ----------------------------------------------------------------------------
def code_actions(server: ReksServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """ "Run affected tests" on the REKS diagnostics in range."""
    ours = [
        d
        for d in params.context.diagnostics
        if d.source == SOURCE and d.code in (AFFECTED, SKIPPED)
    ]
    if not ours:
        return []
    try:
        root = server.state_for(uri_to_path(params.text_document.uri)).root
    except Exception:
        return []
    return [
        types.CodeAction(
            title="Run affected tests",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=ours,
            command=types.Command(title="Run affected tests", command=COMMAND, arguments=[root]),
        )
    ]


# -- run affected tests ------------------------------------------------------------------------
def _roots(server: ReksServer, arguments: Sequence[Any]) -> list[str]:
    if arguments and isinstance(arguments[0], str) and arguments[0]:
        raw = arguments[0]
        path = uri_to_path(raw) if raw.startswith("file:") else raw
        return [server.state_for(str(Path(path) / "x") if Path(path).is_dir() else path).root]
    roots = list(server.states)
    if not roots and server.workspace.root_path:
        roots = [server.state_for(str(Path(server.workspace.root_path) / "x")).root]
    return roots


async def run_affected_tests(server: ReksServer, arguments: Sequence[Any]) -> dict[str, Any]:
    """The command: ``pytest --reks`` per root with progress and cancellation."""
    from lsp_server.project import project_python

    feature = feature_of(server)
    feature.loop = asyncio.get_running_loop()
    progress = await ClientProgress.begin(server, "reks: running affected tests")
    results: list[dict[str, Any]] = []
    end_message = "done"
    try:
        for root in _roots(server, arguments):
            python = project_python(Path(root))
            args = [str(a) for a in _setting(server, "tests.pytestArgs", [])]
            result = await _run_pytest(progress, root, [python, *args])
            results.append(result)
            end_message = result["summary"]
            # Recompute from the store: tests that ran are recorded again.
            refresh(server, root, None)
    finally:
        progress.end(end_message)
    return {"roots": results}


async def _run_pytest(progress: ClientProgress, root: str, command: list[str]) -> dict[str, Any]:
    python, *extra = command
    argv = [python, "-m", "pytest", "--reks", *extra]
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=root,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert proc.stdout is not None
    tail: list[str] = []
    waiter = asyncio.ensure_future(progress.cancel_requested.wait())
    try:
        while True:
            reader = asyncio.ensure_future(proc.stdout.readline())
            done, _ = await asyncio.wait({reader, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if waiter in done:
                reader.cancel()
                raise asyncio.CancelledError()
            raw = reader.result()
            if not raw:
                break
            line = raw.decode("utf-8", "replace").rstrip()
            tail = [*tail[-19:], line]
            match = _PERCENT.search(line)
            if match:
                progress.job.report(int(match.group(1)), 100, line[:120])
        code = await proc.wait()
    except asyncio.CancelledError:
        # The plugin writes each test in its own transaction: a stopped run loses nothing.
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except asyncio.TimeoutError:
                proc.kill()
        raise JsonRpcException(
            "running the affected tests was cancelled", code=types.LSPErrorCodes.RequestCancelled
        ) from None
    finally:
        waiter.cancel()
    summary = next((t for t in reversed(tail) if t.startswith("=")), tail[-1] if tail else "")
    summary = summary.strip("= ")
    if code not in _OK_EXIT_CODES:
        raise JsonRpcException(
            f"pytest --reks failed in {root} (exit code {code}): " + "\n".join(tail[-8:]),
            code=types.ErrorCodes.InternalError,
        )
    return {"root": root, "exitCode": code, "summary": summary or "no tests ran"}
