"""LSP glue of the extreme analysis: the "Analyse weak tests" command and its diagnostics.

``reks.analyseWeakTests`` (``workspace/executeCommand``, optional argument: a folder or
file URI/path; default every workspace folder) runs ``lsp_server.extreme.analyse`` on a
thread with ``$/progress`` and cancellation (``$/cancelRequest`` of the command, or the
client cancelling the progress), then publishes a diagnostic on the ``def`` line of every
pseudo-tested function (no transformation detected; a warning) and partially-tested
function (some detected, some not; information).

The diagnostics go through the server's hub (``lsp_server.lsp.diagnostics``): a run over
some paths replaces only the diagnostics of the files it analysed.

After an analysis, saving a file the analysis covered takes the quick path
(``lsp_server.extreme.quick``): the functions whose unit checksum changed since the last
analysis are analysed again alone (``Options.only``, warm workers), and the diagnostics of
the file's other functions stay published (removed or renamed functions drop out; edited
functions that ran at import are published apart, after the others); then the functions
whose transformed runs reached the edit, published again. A log message
after each step says how many functions were re-analysed.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.jobs import Cancelled
from lsp_server.lsp.arguments import analysis_options, command_targets, require_interpreter
from lsp_server.lsp.convert import path_to_uri, uri_to_path
from lsp_server.lsp.feature import CommandHandler, Feature, Host
from lsp_server.lsp.progress import ClientProgress, import_off_loop, run_on_thread

if TYPE_CHECKING:
    from lsp_server.extreme.analysis import Analysis, Options
    from lsp_server.extreme.model import TransformationResult
    from lsp_server.extreme.quick import SavedChange
    from lsp_server.extreme.warm import WarmPools
    from lsp_server.project import Project

# The extreme analysis (and what it imports) is loaded by the first command that runs it,
# not with the server: process start to the first answer stays short (issue 15).

COMMAND = "reks.analyseWeakTests"
SOURCE = "reks"

log = logging.getLogger(__name__)


def _reanalysed(rel: str, step: SavedChange, fresh: Analysis | None) -> str:
    """The log message of one step of a save's re-analysis."""
    seconds = f"in {fresh.elapsed if fresh is not None else 0.0:.2f} s"
    reached = f"{len(step.reached)} whose transformed runs reached the edit"
    if not step.changed and not step.removed:
        return f"reks: re-analysed {reached} of {rel} {seconds}"
    edited = f"reks: re-analysed {len(step.changed)} edited function(s) of {rel}"
    kind = " (ran at import)" if step.at_import == step.changed else ""
    also = f" and {reached}" if step.reached else ""
    return f"{edited} ({len(step.removed)} removed){kind}{also} {seconds}"


def diagnostics_for(analysis: Analysis) -> dict[str, list[types.Diagnostic]]:
    """Per file URI, one diagnostic per pseudo-tested or partially-tested function."""
    from lsp_server.extreme.report import PARTIALLY_TESTED, PSEUDO_TESTED, function_status

    out: dict[str, list[types.Diagnostic]] = {}
    for key, results in analysis.by_function().items():
        status = function_status(results)
        if status not in (PSEUDO_TESTED, PARTIALLY_TESTED):
            continue
        function = analysis.functions.get(key)
        if function is None:
            continue
        path = analysis.root / function.path
        uri = path_to_uri(str(path))
        out.setdefault(uri, []).append(_diagnostic(path, status, results))
    return out


def _diagnostic(
    path: Path, status: str, results: Sequence[TransformationResult]
) -> types.Diagnostic:
    from lsp_server.extreme.model import Verdict
    from lsp_server.extreme.report import PSEUDO_TESTED

    first = results[0].transformation
    undetected = [r for r in results if r.verdict is Verdict.UNDETECTED]
    caught = [r for r in results if r.verdict in (Verdict.DETECTED, Verdict.TIMEOUT)]
    tests = sorted({t for r in results for t in r.tests})
    bodies = ", ".join(f"`{r.transformation.body}`" for r in undetected)
    if status == PSEUDO_TESTED:
        message = (
            f"`{first.function}` is pseudo-tested: {len(tests)} test(s) execute it but none "
            f"fails when its body is replaced by {bodies}"
        )
        severity = types.DiagnosticSeverity.Warning
    else:
        message = (
            f"`{first.function}` is partially tested: no test fails when its body is replaced "
            f"by {bodies} ({len(caught)} other transformation(s) detected)"
        )
        severity = types.DiagnosticSeverity.Information
    return types.Diagnostic(
        range=_def_range(path, first.line, first.function.rsplit(".", 1)[-1]),
        message=message,
        severity=severity,
        source=SOURCE,
        code=status,
        data={
            "function": first.function,
            "file": first.path,
            "line": first.line,
            "undetected": [r.transformation.body for r in undetected],
            "tests": tests,
        },
    )


def _def_range(path: Path, line: int, name: str) -> types.Range:
    """The function's name on its ``def`` line (the whole line if it cannot be found)."""
    try:
        text = path.read_text(encoding="utf-8").splitlines()[line - 1]
    except (OSError, UnicodeDecodeError, IndexError):
        text = ""
    start = text.find(f"def {name}")
    if start >= 0:
        start += len("def ")
        end = start + len(name)
    else:
        start, end = 0, len(text)
    return types.Range(
        start=types.Position(line=line - 1, character=start),
        end=types.Position(line=line - 1, character=end),
    )


class WeakTestsFeature(Feature):
    """``reks.analyseWeakTests`` and the pseudo-tested diagnostics it publishes."""

    name = "extreme"

    def __init__(self, host: Host) -> None:
        super().__init__(host)
        self._warm: WarmPools | None = None
        self._last: dict[str, Analysis] = {}  # project root -> what is published
        self._running: asyncio.Lock | None = None  # one analysis at a time (shared workers)

    @property
    def running(self) -> asyncio.Lock:
        if self._running is None:  # made on the server's loop
            self._running = asyncio.Lock()
        return self._running

    @property
    def warm(self) -> WarmPools:
        """Workers kept between analyses: re-analysing after an edit skips the collection."""
        if self._warm is None:
            from lsp_server.extreme.warm import WarmPools

            self._warm = WarmPools()
        return self._warm

    def shutdown(self) -> None:
        if self._warm is not None:
            self._warm.close()

    def commands(self) -> dict[str, CommandHandler]:
        return {COMMAND: self.analyse_weak_tests}

    async def analyse_weak_tests(self, arguments: list[Any]) -> dict[str, Any]:
        """The command: analyse, publish diagnostics, return a summary per root."""
        await import_off_loop(
            "lsp_server.extreme.analysis", "lsp_server.extreme.report", "lsp_server.extreme.warm"
        )
        from lsp_server.extreme.analysis import analyse
        from lsp_server.extreme.pool import WorkerError

        host = self.host
        progress = await ClientProgress.begin(host.lsp, "reks: analysing weak tests")
        summaries: list[dict[str, Any]] = []
        try:
            async with self.running:
                for project, paths in command_targets(host, arguments):
                    await require_interpreter(project)
                    options = analysis_options(host, project, paths)
                    work = functools.partial(analyse, warm=self.warm)
                    analysis = await run_on_thread(progress.job, work, project.root, options)
                    summaries.append(self._publish_analysis(project, analysis))
                    self._remember(project, analysis, bool(paths))
        except Cancelled as exc:
            raise JsonRpcException(
                "analysis cancelled", code=types.LSPErrorCodes.RequestCancelled
            ) from exc
        except (WorkerError, FileNotFoundError, ValueError) as exc:
            raise JsonRpcException(
                f"reks extreme: {exc}", code=types.ErrorCodes.InternalError
            ) from exc
        finally:
            progress.end()
        return {"roots": summaries}

    def _remember(self, project: Project, analysis: Analysis, some_paths: bool) -> None:
        """Keep what was published for the quick path of the next save."""
        from lsp_server.extreme.quick import replaced_files

        root = str(project.root)
        if not some_paths:
            self._last[root] = analysis
            return
        files = {f.path for f in analysis.functions.values()} | set(analysis.errors)
        self._last[root] = replaced_files(self._last.get(root), analysis, files)

    def files_saved(self, uris: list[str]) -> None:
        for uri in uris:
            project = self.project_of(uri)
            if project is not None and str(project.root) in self._last:
                self.host.spawn(self._reanalyse_saved(project, uri))

    async def _reanalyse_saved(self, project: Project, uri: str) -> None:
        """The quick path of a saved file (see the module docstring), one step at a time
        (``quick.staged``: the edited functions' verdicts are published first); failures
        are logged."""
        from lsp_server.extreme.pool import WorkerError
        from lsp_server.extreme.quick import merged, saved_change, staged

        root = str(project.root)
        path = Path(uri_to_path(uri))
        try:
            rel = path.relative_to(project.root).as_posix()
        except ValueError:
            return
        async with self.running:
            last = self._last.get(root)
            if last is None:
                return
            options = analysis_options(self.host, project, [path])
            change = await asyncio.to_thread(saved_change, last, rel, options.patterns)
            if change is None or not change.any:
                return
            published = last
            for step in staged(change):
                try:
                    fresh = await self._analyse_changed(project, options, step)
                except (Cancelled, WorkerError, FileNotFoundError, ValueError) as exc:
                    self._log(f"reks: re-analysing {rel} after the save failed: {exc}")
                    return  # the next save is compared with ``last`` again
                published = merged(published, step, fresh)
                uris = {path_to_uri(str(project.root / rel)) for rel in step.files}
                self._publish_analysis(project, published, uris)
                self._log(_reanalysed(rel, step, fresh))
            self._last[root] = published

    async def _analyse_changed(
        self, project: Project, options: Options, change: SavedChange
    ) -> Analysis | None:
        from lsp_server.extreme.analysis import analyse

        if not change.to_analyse:
            return None
        options.only = change.to_analyse
        options.paths = [project.root / rel for rel in change.files]
        reached = f"{len(change.reached)} function(s) the edit reached"
        title = f"reks: re-analysing {len(change.changed)} edited function(s)"
        if not change.changed:
            title = f"reks: re-analysing {reached}"
        elif change.reached:
            title += f" and {reached}"
        progress = await ClientProgress.begin(self.host.lsp, title)
        try:
            work = functools.partial(analyse, warm=self.warm)
            return await run_on_thread(progress.job, work, project.root, options)
        finally:
            progress.end()

    def _log(self, message: str) -> None:
        log.info(message)
        self.host.lsp.window_log_message(
            types.LogMessageParams(type=types.MessageType.Info, message=message)
        )

    def _publish_analysis(
        self, project: Project, analysis: Analysis, also: set[str] | None = None
    ) -> dict[str, Any]:
        from lsp_server.extreme.report import (
            PARTIALLY_TESTED,
            PSEUDO_TESTED,
            function_status,
            markdown,
            rows,
            save,
        )

        data = rows(analysis)
        save(analysis.root, data, markdown(analysis, data))
        analysed = {path_to_uri(str(analysis.root / f.path)) for f in analysis.functions.values()}
        analysed |= also or set()
        # Files outside this run's paths keep their diagnostics.
        self.host.diagnostics.update(
            self.name, str(project.root), diagnostics_for(analysis), analysed
        )
        statuses = [function_status(r) for r in analysis.by_function().values()]
        return {
            "root": str(project.root),
            "functions": len(statuses),
            "pseudoTested": statuses.count(PSEUDO_TESTED),
            "partiallyTested": statuses.count(PARTIALLY_TESTED),
            "transformations": analysis.run_count,
            "reused": len(analysis.reused),
            "seconds": round(analysis.elapsed, 2),
            # Stopped at their timeout on the original code and left out of the analysis.
            "hungTests": analysis.hung_tests,
            "defects": analysis.defects,
            "report": str(analysis.root / ".reks" / "extreme.json"),
        }
