"""LSP glue of the Reneri diagnosis: "Explain weak tests" and the "Add assertion" quick fix.

``reks.explainWeakTests`` (``workspace/executeCommand``; optional arguments: a folder or
file URI/path, then the number of runs per side, default 10) runs the extreme analysis and
diagnoses every undetected transformation on a thread, with ``$/progress`` and
cancellation. It publishes one diagnostic per diagnosis in the test file, on the test line
the suggestion is about (for a weak oracle: the statement after which the assertion goes),
with related locations: the pseudo-tested function and that test line.

``textDocument/codeAction`` offers "Add assertion" (kind ``quickfix``) on every reks
diagnostic whose ``data`` carries an ``assertion`` (ours, and the extreme feature's
pseudo-tested diagnostics once they carry the Reneri fields): a ``WorkspaceEdit`` that
inserts the assertion after its line. If the file changed since, the statement is looked up
again nearby; when it cannot be found, no action is offered rather than a wrong edit.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.jobs import Cancelled, Job
from lsp_server.lsp.arguments import analysis_options, command_targets, require_interpreter
from lsp_server.lsp.convert import path_to_uri
from lsp_server.lsp.feature import CommandHandler, Feature
from lsp_server.lsp.progress import ClientProgress, import_off_loop, run_on_thread

if TYPE_CHECKING:  # the analysis is loaded by the first command that runs it (issue 15)
    from lsp_server.extreme.analysis import Options
    from lsp_server.extreme.reneri.model import Diagnosis

COMMAND = "reks.explainWeakTests"
SOURCE = "reks"
ACTION_TITLE = "Add assertion"
DATA_TAG = "reneri"
SEARCH_WINDOW = 30
"""Lines above and below the recorded one where a moved statement is looked for."""

_SEVERITY = {
    "weak-oracle": types.DiagnosticSeverity.Information,
    "no-propagation": types.DiagnosticSeverity.Information,
    "no-infection": types.DiagnosticSeverity.Information,
    "unknown": types.DiagnosticSeverity.Hint,
}


# -- diagnostics -------------------------------------------------------------------------
def diagnostics_for(
    root: Path, diagnoses: Sequence[Diagnosis]
) -> dict[str, list[types.Diagnostic]]:
    """Per file URI, one diagnostic per diagnosis, in the test file it is about."""
    out: dict[str, list[types.Diagnostic]] = {}
    for diagnosis in diagnoses:
        t = diagnosis.transformation
        function_path = root / t.path
        function_location = types.Location(
            uri=path_to_uri(str(function_path)), range=_line_range(function_path, t.line)
        )
        related = [
            types.DiagnosticRelatedInformation(
                location=function_location,
                message=f"`{t.function}` with its body replaced by `{t.body}`",
            )
        ]
        test_path, test_line = _test_line(root, diagnosis)
        test_location = types.Location(
            uri=path_to_uri(str(test_path)), range=_line_range(test_path, test_line)
        )
        if test_path != function_path or test_line != t.line:
            related.append(
                types.DiagnosticRelatedInformation(
                    location=test_location,
                    message=f"the test line the suggestion is about ({diagnosis.test or ''})",
                )
            )
        out.setdefault(test_location.uri, []).append(
            types.Diagnostic(
                range=test_location.range,
                message=f"{diagnosis.symptom}: {diagnosis.suggestion}",
                severity=_SEVERITY.get(diagnosis.symptom, types.DiagnosticSeverity.Hint),
                source=SOURCE,
                code=diagnosis.symptom,
                related_information=related,
                data=_data(root, diagnosis),
            )
        )
    return out


def _test_line(root: Path, diagnosis: Diagnosis) -> tuple[Path, int]:
    """The file and line the suggestion is about: where the assertion goes, else the
    test's line, else the function's ``def``."""
    if diagnosis.assertion is not None:
        return root / diagnosis.assertion.path, diagnosis.assertion.line
    if diagnosis.test and diagnosis.test_line:
        return root / diagnosis.test.split("::", 1)[0], diagnosis.test_line
    t = diagnosis.transformation
    return root / t.path, t.line


def _data(root: Path, diagnosis: Diagnosis) -> dict[str, Any]:
    t = diagnosis.transformation
    data: dict[str, Any] = {
        DATA_TAG: True,
        "function": t.function,
        "file": t.path,
        "line": t.line,
        "body": t.body,
        "symptom": diagnosis.symptom,
        "test": diagnosis.test,
    }
    if diagnosis.assertion is not None:
        a = diagnosis.assertion
        data["assertion"] = {
            "path": a.path,
            "line": a.line,
            "text": a.text,
            "after": _line_text(root / a.path, a.line),
        }
    return data


def _line_text(path: Path, line: int) -> str:
    try:
        return path.read_text(encoding="utf-8").splitlines()[line - 1]
    except (OSError, UnicodeDecodeError, IndexError):
        return ""


def _line_range(path: Path, line: int) -> types.Range:
    """The text of a 1-based line, without its indentation."""
    text = _line_text(path, line)
    start = len(text) - len(text.lstrip())
    return types.Range(
        start=types.Position(line=max(line - 1, 0), character=start),
        end=types.Position(line=max(line - 1, 0), character=len(text)),
    )


# -- the feature ---------------------------------------------------------------------------
class WeakTestDiagnosisFeature(Feature):
    """``reks.explainWeakTests`` and the "Add assertion" quick fix."""

    name = "reneri"
    code_action_kinds = (types.CodeActionKind.QuickFix,)

    def commands(self) -> dict[str, CommandHandler]:
        return {COMMAND: self.explain_weak_tests}

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        """ "Add assertion" for every reks diagnostic in the request that carries one."""
        only = params.context.only
        if only and not any(types.CodeActionKind.QuickFix.value.startswith(k) for k in only):
            return []
        actions: list[types.CodeAction] = []
        for diagnostic in params.context.diagnostics:
            data = diagnostic.data
            if diagnostic.source != SOURCE or not isinstance(data, dict):
                continue
            assertion = data.get("assertion")
            if not isinstance(assertion, dict):
                # E.g. the extreme feature's diagnostic on a pseudo-tested ``def`` line:
                # offer the assertion of our diagnosis of the same function, if any.
                assertion = self._known_assertion(data)
                if assertion is None:
                    continue
            action = self._add_assertion(params.text_document.uri, diagnostic, assertion)
            if action is not None:
                actions.append(action)
        return actions

    def owns_code_action(self, action: types.CodeAction) -> bool:
        """ "Add assertion" carries its edit already: resolving it returns it as it is."""
        return isinstance(action.data, dict) and bool(action.data.get(DATA_TAG))

    def _known_assertion(self, data: dict[str, Any]) -> dict[str, Any] | None:
        function, file = data.get("function"), data.get("file")
        if not function or not file:
            return None
        for diagnostics in self.host.diagnostics.of(self.name).values():
            for diagnostic in diagnostics:
                ours = diagnostic.data
                if (
                    isinstance(ours, dict)
                    and ours.get("function") == function
                    and ours.get("file") == file
                    and isinstance(ours.get("assertion"), dict)
                ):
                    return dict(ours["assertion"])
        return None

    def _add_assertion(
        self, uri: str, diagnostic: types.Diagnostic, assertion: dict[str, Any]
    ) -> types.CodeAction | None:
        project = self.project_of(uri)
        if project is None:
            return None
        try:
            target = project.root / str(assertion["path"])
            line = int(assertion["line"])
            text = str(assertion["text"])
        except (KeyError, TypeError, ValueError):
            return None
        target_uri = path_to_uri(str(target))
        document = self.host.lsp.workspace.get_text_document(target_uri)
        try:
            source = document.source
        except OSError:
            return None
        edit = assertion_edit(target_uri, source, line, text, str(assertion.get("after", "")))
        if edit is None:
            return None
        return types.CodeAction(
            title=f"{ACTION_TITLE}: {text.strip()}",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            is_preferred=True,
            edit=edit,
            data={DATA_TAG: True},
        )

    async def explain_weak_tests(self, arguments: list[Any]) -> dict[str, Any]:
        """Analyse, diagnose every undetected transformation, publish; a summary per root."""
        await import_off_loop("lsp_server.extreme.analysis", "lsp_server.extreme.reneri")
        host = self.host
        runs = int(arguments[1]) if len(arguments) > 1 and str(arguments[1]).isdigit() else 10
        progress = await ClientProgress.begin(host.lsp, "reks: explaining weak tests")
        summaries: list[dict[str, Any]] = []
        try:
            for project, paths in command_targets(host, arguments[:1]):
                await require_interpreter(project)
                options = analysis_options(host, project, paths)
                diagnoses = await run_on_thread(
                    progress.job, _analyse_and_diagnose, project.root, options, runs
                )
                scope = str(project.root)
                host.diagnostics.replace(self.name, scope, diagnostics_for(project.root, diagnoses))
                summaries.append(_summary(scope, diagnoses))
        except Cancelled as exc:
            raise JsonRpcException(
                "diagnosis cancelled", code=types.LSPErrorCodes.RequestCancelled
            ) from exc
        finally:
            progress.end()
        return {"roots": summaries}


def _summary(root: str, diagnoses: Sequence[Diagnosis]) -> dict[str, Any]:
    return {
        "root": root,
        "diagnosed": len(diagnoses),
        "symptoms": {
            s: sum(d.symptom == s for d in diagnoses)
            for s in ("no-infection", "no-propagation", "weak-oracle", "unknown")
        },
        "assertions": sum(d.assertion is not None for d in diagnoses),
    }


def assertion_edit(
    uri: str, source: str, line: int, text: str, after: str = ""
) -> types.WorkspaceEdit | None:
    """The edit inserting ``text`` as a line after the 1-based ``line`` of ``source``.

    ``after`` is that line's text when the diagnosis was made: if the line no longer holds
    it, the nearest line that does is used; None when there is none.
    """
    lines = source.splitlines()
    found = _relocate(lines, line, after)
    if found is None:
        return None
    line = found
    if line < len(lines) or source.endswith(("\n", "\r")):
        position = types.Position(line=line, character=0)
        new_text = text.rstrip() + "\n"
    else:  # the last line has no newline
        position = types.Position(line=line - 1, character=len(lines[line - 1]))
        new_text = "\n" + text.rstrip()
    edit = types.TextEdit(range=types.Range(start=position, end=position), new_text=new_text)
    return types.WorkspaceEdit(changes={uri: [edit]})


def _relocate(lines: list[str], line: int, after: str) -> int | None:
    if not after:
        return line if 1 <= line <= len(lines) else None
    for distance in range(SEARCH_WINDOW + 1):
        for candidate in (line - distance, line + distance):
            if 1 <= candidate <= len(lines) and lines[candidate - 1] == after:
                return candidate
    return None


def _analyse_and_diagnose(root: Path, options: Options, runs: int, job: Job) -> list[Diagnosis]:
    from lsp_server.extreme.analysis import analyse
    from lsp_server.extreme.model import Verdict
    from lsp_server.extreme.reneri import diagnose

    analysis = analyse(root, options, job)
    undetected = [r for r in analysis.results if r.verdict is Verdict.UNDETECTED]
    return diagnose(analysis.root, undetected, runs=runs, job=job, python=options.python)
