"""Verifying what REKS skipped, in the background while the editor is idle.

With ``verifySkipped: "idle"`` (the default), once no request or edit came for
``verifySkippedAfter`` seconds and no test session is running, the server runs the tests
REKS skipped after refactorings that no run verified yet: ``pytest --reks
--reks-verify-skipped`` in the project's interpreter, at low priority (``nice``), in a
process group of its own, with ``$/progress``. The next edit, save or code-action request
stops it (the tests it finished stay verified; the rest wait for the next idle time);
``reks.verifySkipped`` runs it now, whatever the setting.

A failure is an alarm: a ``window/showMessage`` warning naming the refactoring and what to
undo, and a Warning diagnostic (``reks.alarm``) on the first line the refactoring changed.
The diagnostics stay while the alarm stands (until those tests pass again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shutil
import signal
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_server.lsp.convert import path_to_uri
from lsp_server.lsp.feature import CommandHandler, Feature, Host
from lsp_server.lsp.progress import ClientProgress
from lsp_server.project import Project
from lsp_server.rts.store import DependencyStore, StoreError, store_path
from lsp_server.rts.verification import Alarm, describe_alarm, refactored_place

log = logging.getLogger(__name__)

COMMAND = "reks.verifySkipped"
ALARM = "reks.alarm"
SOURCE = "reks"
POLL_SECONDS = 0.5
_PERCENT = re.compile(r"\[\s*(\d+)%\]\s*$")

AlarmView = tuple[Alarm, str | None, int, str]
"""An alarm, the URI and 0-based line of its refactored place, and that line's text."""


def _pending(root: str) -> int:
    """How many skipped tests wait for verification (0 while a test session runs)."""
    if not store_path(Path(root)).exists():
        return 0
    try:
        with DependencyStore(Path(root), create=False) as store:
            return 0 if store.session_in_progress() else len(store.pending_tests())
    except StoreError:
        return 0


def _standing_alarms(root: str) -> list[AlarmView]:
    """Learn the shapes of new failures; every standing alarm with its place."""
    from lsp_server.rts.verification import alarms

    if not store_path(Path(root)).exists():
        return []  # nothing to learn either: no need to load the trust checks
    from lsp_server.trust.verification import learn_failures

    learn_failures(root)
    out: list[AlarmView] = []
    with DependencyStore(Path(root), create=False) as store:
        for alarm in alarms(store):
            evidence = store.task_evidence(alarm.task_id)
            place = None if evidence is None else refactored_place(evidence)
            if place is None:
                out.append((alarm, None, 0, ""))
            else:
                uri = path_to_uri(str(Path(root) / place.path))
                out.append((alarm, uri, place.line, place.text))
    return out


class SkippedVerificationFeature(Feature):
    """Runs skipped tests when the editor is idle; alarms when one fails."""

    name = "reks-verification"

    def __init__(self, host: Host) -> None:
        super().__init__(host)
        self.last_activity = time.monotonic()
        self.idle_pass_done = False
        self.running = False
        self.interrupt = asyncio.Event()
        self.shown: set[tuple[int, tuple[str, ...]]] = set()

    def commands(self) -> dict[str, CommandHandler]:
        return {COMMAND: self.verify_now}

    def initialized(self) -> None:
        self.host.spawn(self._watch())
        for project in self.host.projects():
            self.host.spawn(self._publish(str(project.root)))

    # -- activity: anything the user does stops a background run --------------------------
    def _activity(self) -> None:
        self.last_activity = time.monotonic()
        self.idle_pass_done = False
        if self.running:
            self.interrupt.set()

    def document_changed(self, uri: str, closed: bool = False) -> None:
        self._activity()

    def files_changed(self, uris: list[str]) -> None:
        self._activity()

    def files_saved(self, uris: list[str]) -> None:
        self._activity()

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        self._activity()
        return []

    # -- the idle watcher -------------------------------------------------------------------
    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(POLL_SECONDS)
            settings = self.host.settings
            idle = time.monotonic() - self.last_activity >= settings.verifySkippedAfter
            if settings.verifySkipped != "idle" or self.running or self.idle_pass_done or not idle:
                continue
            self.idle_pass_done = True
            for project in self.host.projects():
                try:
                    await self._verify(project, background=True)
                except Exception:
                    log.exception("reks: verifying skipped tests in %s failed", project.root)

    async def verify_now(self, arguments: list[Any]) -> dict[str, Any]:
        """The command: verify every workspace folder now."""
        results = [await self._verify(p, background=False) for p in self.host.projects()]
        return {"roots": results}

    async def _verify(self, project: Project, *, background: bool) -> dict[str, Any]:
        root = str(project.root)
        count = await asyncio.to_thread(_pending, root)
        if not count or self.running:
            await self._publish(root)
            return {"root": root, "verified": 0, "interrupted": False}
        self.running = True
        self.interrupt.clear()
        progress = await ClientProgress.begin(
            self.host.lsp, f"reks: verifying {count} tests REKS skipped", unit="%"
        )
        try:
            interrupted = await self._run_pytest(project, progress, background)
        finally:
            self.running = False
            progress.end("paused until you stop typing" if background else "done")
        await self._publish(root)
        return {"root": root, "verified": count, "interrupted": interrupted}

    async def _run_pytest(
        self, project: Project, progress: ClientProgress, background: bool
    ) -> bool:
        """Run the pending tests; True when an edit or a cancel stopped the run."""
        argv = [project.python, "-m", "pytest", "--reks", "--reks-verify-skipped", "-q"]
        argv += [str(a) for a in self.host.settings.tests.pytestArgs]
        nice = shutil.which("nice")
        if background and nice:
            argv = [nice, "-n", "10", *argv]
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=str(project.root),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        assert proc.stdout is not None
        stops = [
            asyncio.ensure_future(e.wait()) for e in (self.interrupt, progress.cancel_requested)
        ]
        try:
            while True:
                reader = asyncio.ensure_future(proc.stdout.readline())
                done, _ = await asyncio.wait({reader, *stops}, return_when=asyncio.FIRST_COMPLETED)
                if reader not in done:
                    reader.cancel()
                    await _stop(proc)
                    return True
                raw = reader.result()
                if not raw:
                    break
                match = _PERCENT.search(raw.decode("utf-8", "replace").rstrip())
                if match:
                    progress.job.report(int(match.group(1)), 100, "")
            await proc.wait()
            return False
        finally:
            for stop in stops:
                stop.cancel()

    # -- alarms ---------------------------------------------------------------------------------
    async def _publish(self, root: str) -> None:
        """Diagnostics for every standing alarm of ``root``; a message for each new one."""
        try:
            views = await asyncio.to_thread(_standing_alarms, root)
        except Exception:
            log.exception("reks: reading the alarms of %s failed", root)
            return
        diagnostics: dict[str, list[types.Diagnostic]] = {}
        for alarm, uri, line, text in views:
            message = "\n".join(describe_alarm(alarm))
            key = (alarm.task_id, alarm.tests)
            if key not in self.shown:
                self.shown.add(key)
                self.host.lsp.window_show_message(
                    types.ShowMessageParams(type=types.MessageType.Warning, message=message)
                )
            if uri is None:
                continue
            start = len(text) - len(text.lstrip())
            diagnostics.setdefault(uri, []).append(
                types.Diagnostic(
                    range=types.Range(
                        start=types.Position(line=line, character=start),
                        end=types.Position(line=line, character=len(text)),
                    ),
                    message=message,
                    severity=types.DiagnosticSeverity.Warning,
                    source=SOURCE,
                    code=ALARM,
                    data={"root": root, "task": alarm.task_id, "tests": list(alarm.tests)},
                )
            )
        self.host.diagnostics.replace(self.name, root, diagnostics)


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """Stop the test run and its children (its own process group). An interrupt first:
    pytest then ends its session, writing what it recorded and settling the tests that
    finished (a killed session would look like one still running)."""
    for signum, grace in ((signal.SIGINT, 10), (signal.SIGTERM, 5), (signal.SIGKILL, None)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signum)
        try:
            await asyncio.wait_for(proc.wait(), grace)
            return
        except asyncio.TimeoutError:
            continue
