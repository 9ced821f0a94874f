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
affectedTests, message, tests}`` the VS Code status bar shows; ``tests`` lists each
located test ``{nodeid, uri, line, state: "skipped"|"affected", reason}`` for a client's
test view (VS Code's Testing view).

``reks.runAffectedTests`` runs ``pytest --reks`` in the project's interpreter as a
subprocess with ``$/progress`` and cancellation; the plugin records dependencies, and the
diagnostics are recomputed from the store (they go away once no longer true). It answers
with the passed and failed counts and the failures, and publishes ``reks.failed`` (Error)
on the ``def`` of each failing test until a run sees it pass.

Rules, verification and status run on one background thread, in the order the tasks were
applied, never on the message loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.lsp.arguments import command_targets, require_interpreter
from lsp_server.lsp.convert import path_to_uri, uri_to_path
from lsp_server.lsp.feature import CommandHandler, Feature, Host
from lsp_server.lsp.progress import ClientProgress
from lsp_server.lsp.test_views import (
    AFFECTED,
    FAILED,
    SKIPPED,
    SOURCE,
    failure_diagnostics,
    test_list,
)
from lsp_server.rts.probe_process import probing_for
from lsp_server.rts.provenance import Provenance
from lsp_server.rts.run_report import SHORT_SUMMARY_OPTION, RunReport, read_run
from lsp_server.rts.test_status import TestStatus, locate_tests, test_status
from lsp_server.trust.task_listener import TaskListener, running_tests, task_summary

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)

COMMAND = "reks.runAffectedTests"
STATUS_NOTIFICATION = "reks/status"
_PERCENT = re.compile(r"\[\s*(\d+)%\]\s*$")
_OK_EXIT_CODES = (0, 1, 5)  # passed, some failed, nothing selected


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


class TestSelectionFeature(Feature):
    """REKS in the editor: the engine listener, test diagnostics, "Run affected tests"."""

    name = "reks"
    code_action_kinds = (types.CodeActionKind.QuickFix,)

    def __init__(self, host: Host) -> None:
        super().__init__(host)
        self.listener = TaskListener(lambda: bool(host.settings.trustButVerify))
        # Rules, verification and status run here, in the order tasks were applied.
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="reks-rules")
        self.loop: asyncio.AbstractEventLoop | None = None
        self.last_summary: dict[str, str] = {}
        # Root -> URI -> the failures of the last run of the affected tests there.
        self.failures: dict[str, dict[str, list[types.Diagnostic]]] = {}
        host.engine.listeners.append(self._on_applied)

    def commands(self) -> dict[str, CommandHandler]:
        return {COMMAND: self.run_affected_tests}

    def initialized(self) -> None:
        for project in self.host.projects():
            self.refresh(str(project.root))

    def files_saved(self, uris: list[str]) -> None:
        """A saved file can make a skipped test affected (or the reverse). A save of a
        refactoring's files that is being announced waits for that announcement, whose
        status is read after the save: refreshed first, it showed them as a hand edit."""
        roots = {str(p.root) for p in map(self.project_of, uris) if p is not None}
        for root in sorted(roots):

            def refresh(announced: bool, root: str = root) -> None:
                if not announced:
                    self.refresh(root)

            self.host.engine.announcements.after(root, refresh)

    def shutdown(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)

    # -- after each applied refactoring --------------------------------------------------
    def _on_applied(self, root: str, provenance: Provenance) -> None:
        # Called on the message loop: verification (jedi) and the store work go to the
        # feature's thread, in order.
        with contextlib.suppress(RuntimeError):
            self.loop = asyncio.get_running_loop()
        overlays = self._unsaved(root)
        self.executor.submit(self._applied_in_background, root, provenance, overlays)

    def _applied_in_background(
        self, root: str, provenance: Provenance, overlays: dict[str, str]
    ) -> None:
        python = self.host.project_for(root).python
        try:
            with probing_for(python):  # the rules analyse files as the tests' interpreter
                self.listener(root, provenance)
        except Exception:
            log.exception("reks: applying the rules for %s failed", provenance.description)
            return
        running = running_tests(root, overlays, python)
        message = task_summary(provenance, self.listener.last, running)
        self._status_changed(root, message, overlays)

    def _unsaved(self, root: str) -> dict[str, str]:
        """Root-relative path -> text of the open documents under ``root``: what was
        refactored is the editor's buffers, saved or not (read on the message loop)."""
        out: dict[str, str] = {}
        for uri, document in list(self.host.lsp.workspace.text_documents.items()):
            try:
                rel = Path(uri_to_path(uri)).relative_to(root)
            except ValueError:
                continue
            out[rel.as_posix()] = document.source
        return out

    def refresh(self, root: str, message: str | None = None) -> None:
        """Recompute the test diagnostics of ``root`` in the background."""
        with contextlib.suppress(RuntimeError):
            self.loop = asyncio.get_running_loop()
        self.executor.submit(self._status_changed, root, message, self._unsaved(root))

    def _status_changed(self, root: str, message: str | None, overlays: dict[str, str]) -> None:
        """On the feature's thread: read the status, then show it on the message loop."""
        try:
            status = test_status(Path(root), overlays, self.host.project_for(root).python)
        except Exception:
            log.exception("reks: reading the test status of %s failed", root)
            return
        if status is None:
            return
        views = _diagnostics(Path(root), status)
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._show, root, status, views, message)

    def _show(
        self,
        root: str,
        status: TestStatus,
        views: dict[str, list[types.Diagnostic]],
        message: str | None,
    ) -> None:
        """On the message loop: replace this root's REKS diagnostics, status and summary."""
        views = dict(views)
        for uri, failed in self.failures.get(root, {}).items():
            views[uri] = [*views.get(uri, []), *failed]
        self.host.diagnostics.replace(self.name, root, views)
        text = message or status.summary()
        self.last_summary[root] = text
        self.host.lsp.protocol.notify(
            STATUS_NOTIFICATION,
            {
                "skipped": len(status.skipped),
                "affected": len(status.affected),
                "affectedTests": sorted(status.affected),
                "message": text,
                "tests": test_list(views),
            },
        )
        if message is not None:
            self._summary(message)

    def _summary(self, message: str) -> None:
        mode = self.host.settings.tests.summary
        lsp = self.host.lsp
        caps = lsp.client_capabilities
        progress_ok = bool(caps.window and caps.window.work_done_progress)
        if mode == "message" or (mode == "progress" and not progress_ok):
            lsp.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Info, message=message)
            )
        elif mode == "progress":
            self.host.spawn(_progress_summary(lsp, message))

    # -- code actions and the command ----------------------------------------------------
    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        """ "Run affected tests" on the REKS diagnostics in range."""
        ours = [
            d
            for d in params.context.diagnostics
            if d.source == SOURCE and d.code in (AFFECTED, SKIPPED, FAILED)
        ]
        if not ours:
            return []
        project = self.project_of(params.text_document.uri)
        if project is None:
            return []
        root = str(project.root)
        command = types.Command(title="Run affected tests", command=COMMAND, arguments=[root])
        return [
            types.CodeAction(
                title="Run affected tests",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=ours,
                command=command,
            )
        ]

    async def run_affected_tests(self, arguments: list[Any]) -> dict[str, Any]:
        """The command: ``pytest --reks`` per root with progress and cancellation."""
        self.loop = asyncio.get_running_loop()
        targets = command_targets(self.host, arguments)
        progress = await ClientProgress.begin(self.host.lsp, "reks: running affected tests")
        results: list[dict[str, Any]] = []
        end_message = "done"
        try:
            for project, _ in targets:
                await require_interpreter(project)
                args = [SHORT_SUMMARY_OPTION, *map(str, self.host.settings.tests.pytestArgs)]
                root = str(project.root)
                result, report = await _run_pytest(progress, root, [project.python, *args])
                failures = failure_diagnostics(project.root, report)
                self.failures[root] = failures
                result.update(passed=report.passed, failed=report.failed)
                result["failures"] = [
                    {"nodeid": (d.data or {})["tests"][0], "uri": uri, "line": d.range.start.line}
                    | {"message": d.message.split(": ", 1)[-1]}
                    for uri, found in failures.items()
                    for d in found
                ]
                results.append(result)
                end_message = report.sentence()
                # Recompute from the store: tests that ran are recorded again.
                self.refresh(str(project.root))
        finally:
            progress.end(end_message)
        return {"roots": results, "message": end_message}


async def _progress_summary(lsp: LanguageServer, message: str) -> None:
    token = f"reks-summary-{uuid.uuid4()}"
    try:
        await lsp.work_done_progress.create_async(token)
    except Exception:
        return
    lsp.work_done_progress.begin(token, types.WorkDoneProgressBegin(title="reks"))
    lsp.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))


async def _run_pytest(
    progress: ClientProgress, root: str, command: list[str]
) -> tuple[dict[str, Any], RunReport]:
    python, *extra = command
    argv = [python, "-m", "pytest", "--reks", *extra]
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=root,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        # pytest cuts each failure's line to the terminal's width: no terminal here.
        env={**os.environ, "COLUMNS": "1000"},
    )
    assert proc.stdout is not None
    tail: list[str] = []
    short_summary: list[str] = []  # every failure's line, however long the output
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
            if line.startswith(("FAILED ", "ERROR ")):
                short_summary.append(line)
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
    rest = [line for line in tail if not line.startswith(("FAILED ", "ERROR "))]
    report = read_run([*short_summary, *rest])
    return {"root": root, "exitCode": code, "summary": summary or "no tests ran"}, report
