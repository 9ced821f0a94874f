"""Field-exhaustive suites in the editor: a code lens "Generate field-exhaustive tests
(scope N)" on each class with an invariant, and the command it runs
(``reks.generateFieldExhaustiveTests``: file, class, scope) with ``$/progress`` and
cancellation. The suite is written to the project's tests and the command returns where."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.jobs import Cancelled, Job
from lsp_server.lsp.arguments import require_interpreter
from lsp_server.lsp.convert import path_to_uri, uri_to_path
from lsp_server.lsp.feature import CommandHandler, Feature, MethodHandler
from lsp_server.lsp.progress import ClientProgress, import_off_loop, run_on_thread
from lsp_server.project.files import MAX_ANALYSED_CHARS

GENERATE = "reks.generateFieldExhaustiveTests"


class FieldExhaustiveFeature(Feature):
    name = "fex"

    def methods(self) -> list[MethodHandler]:
        return [
            MethodHandler(types.TEXT_DOCUMENT_CODE_LENS, self.code_lenses, types.CodeLensOptions())
        ]

    def commands(self) -> dict[str, CommandHandler]:
        return {GENERATE: self.generate}

    async def code_lenses(self, params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri
        project = self.project_of(uri)
        if project is None:
            return []
        path = uri_to_path(uri)
        text = self.host.lsp.workspace.get_text_document(uri).source
        if len(text) > MAX_ANALYSED_CHARS or "class" not in text:
            return []
        section = project.config.section("fex")
        targets, scope, title = await asyncio.to_thread(_lens_targets, text, section, project.root)
        lenses = []
        for target in targets:
            at = types.Position(line=target.line, character=target.column)
            command = types.Command(
                title=title, command=GENERATE, arguments=[path, target.name, scope]
            )
            lenses.append(types.CodeLens(range=types.Range(at, at), command=command))
        return lenses

    async def generate(self, arguments: list[Any]) -> dict[str, Any]:
        if len(arguments) < 2 or not all(isinstance(a, str) for a in arguments[:2]):
            raise JsonRpcException(
                "expected the file and the class name (and a scope)",
                code=types.ErrorCodes.InvalidParams,
            )
        path = uri_to_path(arguments[0]) if arguments[0].startswith("file:") else arguments[0]
        class_name = arguments[1]
        await import_off_loop("lsp_server.fex.editor")
        from lsp_server.fex.editor import default_scope, generate_tests
        from lsp_server.fex.model import FexError

        project = self.host.project_for(path)
        scope = arguments[2] if len(arguments) > 2 and isinstance(arguments[2], int) else 0
        scope = scope if scope > 0 else default_scope(project.root)
        await require_interpreter(project)
        progress = await ClientProgress.begin(
            self.host.lsp, f"reks: field-exhaustive tests of {class_name} (scope {scope})"
        )

        def work(job: Job) -> tuple[Any, Path]:
            return generate_tests(project.root, path, class_name, scope, job, python=project.python)

        try:
            suite, written = await run_on_thread(progress.job, work)
        except Cancelled as exc:
            raise JsonRpcException(
                "generation cancelled", code=types.LSPErrorCodes.RequestCancelled
            ) from exc
        except FexError as exc:
            raise JsonRpcException(
                f"reks fex: {exc}", code=types.LSPErrorCodes.RequestFailed
            ) from exc
        finally:
            progress.end()
        return {**suite.to_json(), "file": str(written), "uri": path_to_uri(str(written))}


def _lens_targets(text: str, section: dict[str, Any], root: Path) -> tuple[list[Any], int, str]:
    """The classes of ``text`` with an invariant, the default scope and the lens title. On a
    thread: fex is imported with the first lens, and never on the message loop."""
    from lsp_server.fex.editor import classes_with_rep_ok, default_scope, lens_title
    from lsp_server.fex.model import INVARIANT_NAME

    targets = classes_with_rep_ok(text, str(section.get("invariant", INVARIANT_NAME)))
    scope = default_scope(root)
    return targets, scope, lens_title(scope)
