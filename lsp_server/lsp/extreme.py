"""LSP glue of the extreme analysis: the "Analyse weak tests" command and its diagnostics.

``reks.analyseWeakTests`` (``workspace/executeCommand``, optional argument: a folder or
file URI/path; default every workspace folder) runs ``lsp_server.extreme.analyse`` on a
thread with ``$/progress`` and cancellation (``$/cancelRequest`` of the command, or the
client cancelling the progress), then publishes a diagnostic on the ``def`` line of every
pseudo-tested function (no transformation detected; a warning) and partially-tested
function (some detected, some not; information).

Diagnostics of several features can target the same file, and ``publishDiagnostics``
replaces a file's whole list: each feature keeps its own per-URI lists in
``WorkspaceState.data["<feature>.diagnostics"]`` and ``publish`` sends their union.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.extreme.analysis import Analysis, Options, analyse
from lsp_server.extreme.model import TransformationResult, Verdict
from lsp_server.extreme.pool import WorkerError
from lsp_server.extreme.report import (
    PARTIALLY_TESTED,
    PSEUDO_TESTED,
    function_status,
    markdown,
    rows,
    save,
)
from lsp_server.jobs import Cancelled, Job
from lsp_server.lsp.convert import path_to_uri, uri_to_path
from lsp_server.lsp.progress import ClientProgress

if TYPE_CHECKING:
    from lsp_server.server import ReksServer

COMMAND = "reks.analyseWeakTests"
SOURCE = "reks"
DIAGNOSTICS_KEY = "extreme.diagnostics"


def diagnostics_for(analysis: Analysis) -> dict[str, list[types.Diagnostic]]:
    """Per file URI, one diagnostic per pseudo-tested or partially-tested function."""
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


def publish(server: ReksServer, uris: Sequence[str]) -> None:
    """Send, for each URI, the union of every feature's diagnostics for it."""
    for uri in uris:
        merged: list[types.Diagnostic] = []
        for state in server.states.values():
            for key, per_uri in state.data.items():
                if key.endswith(".diagnostics") and isinstance(per_uri, dict):
                    merged.extend(per_uri.get(uri, []))
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=merged)
        )


def _target(server: ReksServer, arguments: Sequence[Any]) -> list[tuple[str, list[Path]]]:
    """(workspace root, paths to analyse) for the command's optional argument."""
    if arguments and isinstance(arguments[0], str) and arguments[0]:
        raw = arguments[0]
        path = uri_to_path(raw) if raw.startswith("file:") else raw
        state = server.state_for(path)
        return [(state.root, [] if Path(path) == Path(state.root) else [Path(path)])]
    roots = [state.root for state in server.states.values()]
    if not roots and server.workspace.root_path:
        roots = [server.state_for(server.workspace.root_path).root]
    return [(root, []) for root in roots]


async def analyse_weak_tests(server: ReksServer, arguments: Sequence[Any]) -> dict[str, Any]:
    """The command: analyse, publish diagnostics, return a summary per root."""
    loop = asyncio.get_running_loop()
    progress = await ClientProgress.begin(server, "reks: analysing weak tests")
    job = progress.job
    summaries: list[dict[str, Any]] = []
    try:
        for root, paths in _target(server, arguments):
            analysis = await _run(loop, job, Path(root), _options(server, paths))
            summaries.append(_publish_analysis(server, root, analysis))
    except asyncio.CancelledError:
        job.cancel()
        raise
    except Cancelled as exc:
        raise JsonRpcException(
            "analysis cancelled", code=types.LSPErrorCodes.RequestCancelled
        ) from exc
    except (WorkerError, FileNotFoundError, ValueError) as exc:
        raise JsonRpcException(f"reks extreme: {exc}", code=types.ErrorCodes.InternalError) from exc
    finally:
        progress.end()
    return {"roots": summaries}


def _options(server: ReksServer, paths: list[Path]) -> Options:
    """Analysis options from the client's ``reks.extreme.*`` settings."""
    settings = server.settings.extreme
    return Options(
        paths=paths,
        jobs=max(0, settings.jobs),
        patterns=list(settings.skipPatterns),
        timeout_factor=max(1.0, float(settings.timeoutFactor)),
        incremental=settings.incremental,
    )


async def _run(loop: asyncio.AbstractEventLoop, job: Job, root: Path, options: Options) -> Analysis:
    future = loop.run_in_executor(None, lambda: analyse(root, options, job))
    try:
        return await future
    except asyncio.CancelledError:
        job.cancel()  # the thread stops its workers at the next check
        raise


def _publish_analysis(server: ReksServer, root: str, analysis: Analysis) -> dict[str, Any]:
    data = rows(analysis)
    save(analysis.root, data, markdown(analysis, data))
    state = server.state_for(root)
    previous: dict[str, list[types.Diagnostic]] = state.data.get(DIAGNOSTICS_KEY, {})
    current = diagnostics_for(analysis)
    analysed = {path_to_uri(str(analysis.root / f.path)) for f in analysis.functions.values()}
    # Files outside this run's paths keep their diagnostics.
    merged = {u: d for u, d in previous.items() if u not in analysed}
    merged.update(current)
    state.data[DIAGNOSTICS_KEY] = merged
    publish(server, sorted(set(previous) | set(current)))
    statuses = [function_status(r) for r in analysis.by_function().values()]
    return {
        "root": root,
        "functions": len(statuses),
        "pseudoTested": statuses.count(PSEUDO_TESTED),
        "partiallyTested": statuses.count(PARTIALLY_TESTED),
        "transformations": analysis.run_count,
        "reused": len(analysis.reused),
        "seconds": round(analysis.elapsed, 2),
        "report": str(analysis.root / ".reks" / "extreme.json"),
    }
