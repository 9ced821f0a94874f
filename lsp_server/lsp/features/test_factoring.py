"""Test factoring in the editor: "Factor this test" on a test function, the boundaries to
choose from, and diagnostics on factored tests whose environment changed since capture.

``reks.suggestBoundaries`` (arguments: a test node id, optionally a file in the project)
profiles the test and returns the candidate boundaries for a quick pick;
``reks.factorTest`` (a node id, the boundaries, optionally a file) captures, emits and checks
the factored test, with ``$/progress`` and cancellation. The code action "Factor this test"
runs ``reks.factorTest`` without boundaries: the best suggested one is taken. A factoring's
warnings (T reads the wall clock while E is replayed from the capture's moment) are shown as
a message when it ends, and as a diagnostic on the factored test while its transcript has
them.
"""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.jobs import Cancelled
from lsp_server.lsp.arguments import require_interpreter
from lsp_server.lsp.convert import path_to_uri, uri_to_path
from lsp_server.lsp.feature import CommandHandler, Feature
from lsp_server.lsp.progress import ClientProgress, import_off_loop, run_on_thread
from lsp_server.project import Project
from lsp_server.project.text import parse_python

FACTOR = "reks.factorTest"
SUGGEST = "reks.suggestBoundaries"
AFTER_START_SECONDS = 3.0
"""When the server starts, factored tests are looked for this much later: the look walks
every file of the project (and imports the factoring package, pytest with it) on a thread
that holds the interpreter lock for seconds, while the editor asks for its first code
actions (their p99 at start, issue 15)."""
STALE = "reks.factoring.stale"
WARNING = "reks.factoring.warning"
SOURCE = "reks"
TITLE = "Factor this test"
REPLAY_CLOCK = "Replay the test's clock from the capture"
"""The choice offered when a factored test fails once time has passed: ``reks factor
--clock-in-e``, T's wall clock replayed from the capture's moment."""


class FactoringFeature(Feature):
    name = "factoring"
    code_action_kinds = (types.CodeActionKind.RefactorRewrite,)

    def commands(self) -> dict[str, CommandHandler]:
        return {FACTOR: self.factor, SUGGEST: self.suggest}

    def initialized(self) -> None:
        for project in self.host.projects():
            self.host.spawn(self._publish_stale(project, after=AFTER_START_SECONDS))

    def files_saved(self, uris: list[str]) -> None:
        projects = {p for p in map(self.project_of, uris) if p is not None}
        for project in projects:
            self.host.spawn(self._publish_stale(project))

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        only = params.context.only
        if only and not any(types.CodeActionKind.RefactorRewrite.value.startswith(k) for k in only):
            return []
        uri = params.text_document.uri
        project = self.project_of(uri)
        if project is None:
            return []
        path = uri_to_path(uri)
        if not Path(path).name.startswith("test_") or Path(path).name.startswith("test_factored"):
            return []
        text = self.host.lsp.workspace.get_text_document(uri).source
        nodeid = await asyncio.to_thread(
            nodeid_at, text, params.range.start.line + 1, project.rel(path) or ""
        )
        if nodeid is None:
            return []
        command = types.Command(title=TITLE, command=FACTOR, arguments=[nodeid, [], path])
        return [
            types.CodeAction(
                title=TITLE, kind=types.CodeActionKind.RefactorRewrite, command=command
            )
        ]

    async def suggest(self, arguments: list[Any]) -> list[dict[str, Any]]:
        nodeid, project = self._target(arguments, 1)
        await require_interpreter(project)
        progress = await ClientProgress.begin(self.host.lsp, f"reks: profiling {nodeid}")
        try:
            candidates = await run_on_thread(
                progress.job, _suggest, project.root, nodeid, project.python
            )
        finally:
            progress.end()
        return [c.to_json() for c in candidates]

    async def factor(self, arguments: list[Any]) -> dict[str, Any]:
        """Arguments: the test's node id, the boundaries (none: the best suggested one), a
        file of the project, and options (``{"clockInE": true}``: T's clock is replayed
        from the capture's moment, as ``reks factor --clock-in-e``)."""
        nodeid, project = self._target(arguments, 2)
        raw = arguments[1] if len(arguments) > 1 else []
        boundaries = [str(b) for b in raw] if isinstance(raw, list) else []
        options = arguments[3] if len(arguments) > 3 and isinstance(arguments[3], dict) else {}
        clock_in_e = options.get("clockInE") is True
        await import_off_loop("lsp_server.factoring")  # with the command, not the server
        from lsp_server.factoring.later import FAILS_LATER

        await require_interpreter(project)
        result = await self._factor(project, nodeid, boundaries, clock_in_e)
        if result.get("details", {}).get(FAILS_LATER) and await self._replay_clock_wanted(result):
            result = await self._factor(project, nodeid, result["boundaries"], True)
        if result["status"] == "refused":
            self._tell(types.MessageType.Warning, f"{nodeid} was not factored: {result['reason']}")
        for warning in result.get("warnings", []):
            self._tell(types.MessageType.Warning, f"factored test of {nodeid}: {warning}")
        self.host.spawn(self._publish_stale(project))
        return result

    async def _factor(
        self, project: Project, nodeid: str, boundaries: list[str], clock_in_e: bool
    ) -> dict[str, Any]:
        """One factoring with ``$/progress``: its result, or the refusal when no boundary
        is usable."""
        from lsp_server.factoring.runner import RunError

        progress = await ClientProgress.begin(self.host.lsp, f"reks: factoring {nodeid}")
        try:
            if not boundaries:
                candidates = await run_on_thread(
                    progress.job, _suggest, project.root, nodeid, project.python
                )
                usable = [c.boundary for c in candidates if not c.refused]
                if not usable:
                    why = candidates[0].refused if candidates else "no boundary below the test"
                    return {"test": nodeid, "status": "refused", "reason": why}
                boundaries = usable[:1]
            result = await run_on_thread(
                progress.job, _factor, project.root, nodeid, boundaries, project.python, clock_in_e
            )
        except Cancelled as exc:
            raise JsonRpcException(
                "factoring cancelled", code=types.LSPErrorCodes.RequestCancelled
            ) from exc
        except RunError as exc:
            raise JsonRpcException(f"reks: {exc}", code=types.LSPErrorCodes.RequestFailed) from exc
        finally:
            progress.end()
        outcome: dict[str, Any] = result.to_json()
        return outcome

    async def _replay_clock_wanted(self, refused: dict[str, Any]) -> bool:
        """Whether the user, told why the factored test was refused (it fails once time has
        passed), asks for T's clock to be replayed from the capture's moment."""
        choice = await self.host.lsp.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Warning,
                message=f"reks: {refused['test']} was not factored: {refused['reason']}",
                actions=[types.MessageActionItem(title=REPLAY_CLOCK)],
            )
        )
        return choice is not None and choice.title == REPLAY_CLOCK

    def _tell(self, kind: types.MessageType, message: str) -> None:
        self.host.lsp.window_show_message(
            types.ShowMessageParams(type=kind, message=f"reks: {message}")
        )

    def _target(self, arguments: list[Any], file_index: int) -> tuple[str, Project]:
        if not arguments or not isinstance(arguments[0], str) or "::" not in arguments[0]:
            raise JsonRpcException(
                "the first argument must be a test node id (path::test)",
                code=types.ErrorCodes.InvalidParams,
            )
        nodeid = arguments[0]
        if len(arguments) > file_index and isinstance(arguments[file_index], str):
            anchor = arguments[file_index]
            anchor = uri_to_path(anchor) if anchor.startswith("file:") else anchor
            return nodeid, self.host.project_for(anchor)
        projects = self.host.projects()
        if not projects:
            raise JsonRpcException("no workspace folder", code=types.ErrorCodes.InvalidParams)
        return nodeid, projects[0]

    async def _publish_stale(self, project: Project, after: float = 0.0) -> None:
        """The diagnostics of the project's factored tests: stale ones, and the warnings of
        the others (``after`` seconds from now)."""
        await asyncio.sleep(after)
        stale, warned = await asyncio.to_thread(_stale_and_warned, project.root)
        per_uri: dict[str, list[types.Diagnostic]] = {}
        found = [
            (t.factored_test, f"stale factored test of {t.original}: {t.reason}", STALE)
            for t in stale
        ]
        stale_files = {t.factored_test for t in stale}  # skipped when run: stale says it all
        found += [
            (w.factored_test, f"factored test of {w.original}: {w.reason}", WARNING)
            for w in warned
            if w.factored_test not in stale_files
        ]
        start = types.Position(line=0, character=0)
        for rel, message, code in found:
            per_uri.setdefault(path_to_uri(str(project.root / rel)), []).append(
                types.Diagnostic(
                    range=types.Range(start, start),
                    message=message,
                    severity=types.DiagnosticSeverity.Warning,
                    source=SOURCE,
                    code=code,
                )
            )
        self.host.diagnostics.replace(self.name, str(project.root), per_uri)


def _stale_and_warned(root: Path) -> tuple[list[Any], list[Any]]:
    # imported here, on a thread: this runs when a folder opens, and importing factoring
    # (pytest with it) on the message loop delayed the first requests by a second or more
    from lsp_server.factoring import factored_test_warnings, stale_factored_tests

    return stale_factored_tests(root), factored_test_warnings(root)


def _suggest(root: Path, nodeid: str, python: str, job: Any) -> list[Any]:
    from lsp_server.factoring import suggest_boundaries

    return suggest_boundaries(root, nodeid, job, python)


def _factor(
    root: Path, nodeid: str, boundaries: list[str], python: str, clock_in_e: bool, job: Any
) -> Any:
    from lsp_server.factoring import factor_test

    return factor_test(root, nodeid, boundaries, job, python, clock_in_e=clock_in_e)


def nodeid_at(text: str, line: int, rel: str) -> str | None:
    """The node id of the test function (or method of a ``Test*`` class) whose ``def`` or
    body holds 1-based ``line`` of a test file at root-relative ``rel``; None elsewhere."""
    try:
        tree = parse_python(text, rel)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        scopes: list[tuple[str, ast.AST]] = [("", node)]
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            scopes = [(f"{node.name}::", child) for child in node.body]
        for prefix, scope in scopes:
            if (
                isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef)
                and scope.name.startswith("test")
                and scope.lineno <= line <= (scope.end_lineno or scope.lineno)
            ):
                return f"{rel}::{prefix}{scope.name}"
    return None
