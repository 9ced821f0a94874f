"""End to end: the real server over stdio explains the weak tests of the example, and its
"Add assertion" quick fix makes the pseudo-tested transformation detected."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_server.lsp.features.weak_test_diagnosis import COMMAND
from lsp_server.lsp.features.weak_tests import COMMAND as ANALYSE
from tests.support.reneri import rewrite_body, run_pytest


async def test_explain_then_add_assertion(example_client: LanguageClient, example: Path) -> None:
    result = await example_client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=COMMAND, arguments=[example.as_uri(), "2"])
    )
    (summary,) = result["roots"]
    assert summary["symptoms"] == {
        "no-infection": 2,
        "no-propagation": 1,
        "weak-oracle": 1,
        "unknown": 0,
    }
    test_file = example / "test_versioned_set.py"
    diagnostics = [d for d in example_client.diagnostics[test_file.as_uri()] if d.source == "reks"]
    (weak,) = [d for d in diagnostics if d.code == "weak-oracle"]
    assert weak.range.start.line == 5
    assert weak.related_information is not None
    assert {r.location.uri for r in weak.related_information} == {
        (example / "versioned_set.py").as_uri(),
        test_file.as_uri(),
    }

    # The extreme feature's diagnostic on the pseudo-tested ``def`` offers the same fix.
    await example_client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=ANALYSE, arguments=[])
    )
    source = example / "versioned_set.py"
    (on_def,) = [d for d in example_client.diagnostics[source.as_uri()] if d.range.start.line == 12]
    from_def = await example_client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=source.as_uri()),
            range=on_def.range,
            context=types.CodeActionContext(diagnostics=[on_def]),
        )
    )
    assert from_def is not None
    (fix,) = [a for a in from_def if getattr(a, "kind", None) == types.CodeActionKind.QuickFix]
    assert fix.title == "Add assertion: assert s.version == 1"
    assert fix.edit is not None and fix.edit.changes is not None
    assert list(fix.edit.changes) == [test_file.as_uri()]

    text = test_file.read_text(encoding="utf-8")
    example_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=test_file.as_uri(), language_id="python", version=1, text=text
            )
        )
    )
    actions = await example_client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=test_file.as_uri()),
            range=weak.range,
            context=types.CodeActionContext(
                diagnostics=[weak], only=[types.CodeActionKind.QuickFix]
            ),
        )
    )
    assert actions is not None
    (add,) = [a for a in actions if isinstance(a, types.CodeAction)]
    assert add.title == "Add assertion: assert s.version == 1"
    assert add.kind == types.CodeActionKind.QuickFix
    resolved = await example_client.code_action_resolve_async(add)  # a no-op for this action
    assert resolved.edit == add.edit
    assert add.edit is not None and add.edit.changes is not None
    (edit,) = add.edit.changes[test_file.as_uri()]
    lines = text.splitlines(keepends=True)
    lines.insert(edit.range.start.line, edit.new_text)
    test_file.write_text("".join(lines), encoding="utf-8")

    test_add = "test_versioned_set.py::test_add"
    assert run_pytest(example, test_add).returncode == 0
    rewrite_body(example, "versioned_set.py", "VersionedSet._increment_version", "pass")
    assert run_pytest(example, test_add).returncode == 1
