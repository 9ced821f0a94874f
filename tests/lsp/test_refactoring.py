"""End to end: the real server over stdio, Neovim 0.11 and VS Code capability profiles,
edits applied to a real project whose own tests must still pass."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.support.geometry import (
    apply_text_edits,
    apply_workspace_edit,
    project_tests_pass,
    text_edits,
)
from tests.support.lsp import change_document, open_document, until

# End-to-end: a server process per test (about 2-4 s each).
pytestmark = [pytest.mark.timeout(90), pytest.mark.slow]


def position(path: Path, needle: str, delta: int = 0) -> types.Position:
    text = path.read_text()
    offset = text.index(needle) + delta
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


def doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=path.as_uri())


def apply(client: LanguageClient, edit: types.WorkspaceEdit | None) -> list[Path]:
    assert edit is not None
    touched = apply_workspace_edit(edit)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(
                    uri=p.as_uri(),
                    type=types.FileChangeType.Changed
                    if p.exists()
                    else types.FileChangeType.Deleted,
                )
                for p in touched
            ]
        )
    )
    return touched


async def rename(client: LanguageClient, path: Path, needle: str, delta: int, new: str):
    return await client.text_document_rename_async(
        types.RenameParams(
            text_document=doc(path), position=position(path, needle, delta), new_name=new
        )
    )


async def test_rename_method_with_override_and_super(client: LanguageClient, project: Path):
    shapes = project / "geometry/shapes.py"
    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(
            text_document=doc(shapes), position=position(shapes, "def area", 5)
        )
    )
    assert isinstance(prepared, types.PrepareRenamePlaceholder) and prepared.placeholder == "area"
    apply(client, await rename(client, shapes, "def area", 4, "surface"))
    # once the files hold the edit, the server announces the applied refactoring
    # (the first applied task loads the trust checks: seconds on a loaded machine)
    await until(
        lambda: any("applied rename `area`" in m.message for m in client.log_messages),
        "the announcement",
        60,
    )
    assert any("applied rename `area` -> `surface`" in m.message for m in client.log_messages)
    text = shapes.read_text()
    assert "super().surface(scale)" in text and "def area" not in text
    tests = project / "tests/test_app.py"
    tests.write_text(tests.read_text().replace(".area(3)", ".surface(3)"))
    assert project_tests_pass(project)


async def test_rename_local_parameter_function_class_attribute(
    client: LanguageClient, project: Path
):
    shapes, util = project / "geometry/shapes.py", project / "geometry/util.py"
    apply(client, await rename(client, shapes, "result = 0", 0, "acc"))
    apply(client, await rename(client, shapes, "side):", 0, "length"))
    apply(client, await rename(client, util, "def double", 4, "twice"))
    apply(client, await rename(client, shapes, "class Square", 6, "Box"))
    apply(client, await rename(client, shapes, "self.side =", 5, "edge"))
    text = shapes.read_text()
    assert "acc = 0" in text and "self.edge = length" in text and "class Box" in text
    assert "twice(value) * 2" in util.read_text()
    tests = project / "tests/test_app.py"
    tests.write_text(tests.read_text().replace("Square", "Box"))
    assert "from geometry.shapes import Box, total_area" in (project / "app.py").read_text()
    assert project_tests_pass(project)


async def test_rename_module_and_package(client: LanguageClient, project: Path):
    app = project / "app.py"
    edit = await rename(client, app, "import util", 7, "helpers")
    assert edit is not None and edit.document_changes is not None
    assert any(isinstance(c, types.RenameFile) for c in edit.document_changes)
    apply(client, edit)
    assert (project / "geometry/helpers.py").exists()
    assert not (project / "geometry/util.py").exists()
    edit = await rename(client, app, "geometry.shapes", 0, "geo")
    apply(client, edit)
    assert (project / "geo/shapes.py").exists()
    assert "from geo.shapes import" in (project / "tests/test_app.py").read_text()
    assert project_tests_pass(project)


@pytest.mark.parametrize(
    ("new_rel", "new_import"),
    [
        ("geometry/numbers.py", "from geometry import numbers"),
        # renamed and moved at once: two rope steps, one edit
        ("tools/numbers.py", "from tools import numbers"),
    ],
)
async def test_will_rename_files_updates_imports(
    client: LanguageClient, project: Path, new_rel: str, new_import: str
):
    (project / "tools").mkdir()
    (project / "tools/__init__.py").write_text("")
    old, new = project / "geometry/util.py", project / new_rel
    edit = await client.workspace_will_rename_files_async(
        types.RenameFilesParams(
            files=[types.FileRename(old_uri=old.as_uri(), new_uri=new.as_uri())]
        )
    )
    assert edit is not None
    apply_workspace_edit(edit)
    old.rename(new)  # the editor renames the file itself
    assert new_import in (project / "app.py").read_text()
    assert project_tests_pass(project)


async def test_invalid_and_clashing_names_are_errors(vscode: LanguageClient, project: Path):
    util = project / "geometry/util.py"
    before = util.read_text()
    for new_name, message in [
        ("2x", "not a valid"),
        ("for", "keyword"),
        ("quadruple", "already defined"),
    ]:
        with pytest.raises(Exception, match=message):
            await rename(vscode, util, "def double", 4, new_name)
    assert util.read_text() == before


async def test_unparsable_file_is_skipped_and_reported(vscode: LanguageClient, project: Path):
    broken = project / "geometry/broken.py"
    broken.write_text("from geometry.util import double\ndef f(:\n    double(1)\n")
    util = project / "geometry/util.py"
    apply(vscode, await rename(vscode, util, "def double", 4, "twice"))
    assert "def twice" in util.read_text()
    assert "double(1)" in broken.read_text()
    if not vscode.messages:
        await vscode.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    assert any("broken.py" in m.message for m in vscode.messages)


async def test_extract_method_via_code_action_and_resolve(client: LanguageClient, project: Path):
    util = project / "geometry/util.py"
    open_document(client, util)
    start = position(util, "double(value) * 2")
    end = position(util, "double(value) * 2", len("double(value) * 2"))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=doc(util),
            range=types.Range(start, end),
            context=types.CodeActionContext(
                diagnostics=[], only=[types.CodeActionKind.RefactorExtract]
            ),
        )
    )
    assert actions is not None
    kinds = {a.kind for a in actions if isinstance(a, types.CodeAction)}
    assert {"refactor.extract.method", "refactor.extract.variable"} <= kinds
    action = next(
        a
        for a in actions
        if isinstance(a, types.CodeAction) and a.kind == "refactor.extract.method"
    )
    assert action.edit is None  # computed only when resolved
    resolved = await client.code_action_resolve_async(action)
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=doc(util)))
    apply(client, resolved.edit)
    assert "def extracted_method(value):" in util.read_text()
    assert project_tests_pass(project)


async def test_code_actions_at_a_definition(vscode: LanguageClient, project: Path):
    shapes = project / "geometry/shapes.py"
    open_document(vscode, shapes)
    at = position(shapes, "def total_area", 5)
    actions = await vscode.text_document_code_action_async(
        types.CodeActionParams(
            text_document=doc(shapes),
            range=types.Range(at, at),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    kinds = {a.kind for a in actions or [] if isinstance(a, types.CodeAction)}
    assert {
        "refactor.move.global",
        "refactor.inline.method",
        "refactor.rewrite.methodObject",
    } <= kinds
    assert "source.organizeImports" not in kinds  # shapes.py has no imports
    move = next(
        a
        for a in actions or []
        if isinstance(a, types.CodeAction) and a.kind == "refactor.move.global"
    )
    assert move.command is not None and move.command.command == "reks.refactor.move"
    # the background pre-warm reported its progress and ended
    for _ in range(100):
        reports = [v for values in vscode.progress_reports.values() for v in values]
        if any(getattr(v, "kind", None) == "end" for v in reports):
            break
        await asyncio.sleep(0.1)
    assert any(isinstance(v, types.WorkDoneProgressBegin) for v in reports)
    assert any(isinstance(v, types.WorkDoneProgressEnd) for v in reports)


async def test_command_fallback_and_move_with_destination(
    plain_client: LanguageClient, project: Path
):
    util = project / "geometry/util.py"
    open_document(plain_client, util)
    start = position(util, "value * 2")
    end = position(util, "value * 2", len("value * 2"))
    actions = await plain_client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=doc(util),
            range=types.Range(start, end),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    extract = next(
        a
        for a in actions or []
        if isinstance(a, types.CodeAction) and a.kind == "refactor.extract.method"
    )
    assert extract.command is not None and extract.edit is None and extract.data is None
    await plain_client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command=extract.command.command, arguments=extract.command.arguments
        )
    )
    assert len(plain_client.applied_edits) == 1  # type: ignore[attr-defined]
    # announced once the provenance is computed, off the message loop
    await until(
        lambda: any("applied extract method" in m.message for m in plain_client.log_messages),
        "the announcement",
        60,
    )
    assert any("applied extract method" in m.message for m in plain_client.log_messages)
    plain_client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=doc(util)))
    assert "def extracted_method(value):" in util.read_text()
    # move: the client fills in the destination the server left empty
    open_document(plain_client, util)
    at = position(util, "def quadruple", 5)
    actions = await plain_client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=doc(util),
            range=types.Range(at, at),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    move = next(
        a
        for a in actions or []
        if isinstance(a, types.CodeAction) and a.kind == "refactor.move.global"
    )
    assert move.command is not None and move.command.arguments
    # As Neovim 0.7 sends it back: the table of null fields became an empty JSON list.
    argument = dict(move.command.arguments[0], destination="geometry.shapes", args=[])
    await plain_client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=move.command.command, arguments=[argument])
    )
    assert "def quadruple" in (project / "geometry/shapes.py").read_text()
    assert project_tests_pass(project)


async def test_settings_switch_actions_off(vscode: LanguageClient, project: Path):
    util = project / "geometry/util.py"
    open_document(vscode, util)
    vscode.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"reks": {"actions": {"extractMethod": False}}})
    )
    start, end = position(util, "value * 2"), position(util, "value * 2", 9)
    actions = await vscode.text_document_code_action_async(
        types.CodeActionParams(
            text_document=doc(util),
            range=types.Range(start, end),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    kinds = {a.kind for a in actions or [] if isinstance(a, types.CodeAction)}
    assert "refactor.extract.variable" in kinds and "refactor.extract.method" not in kinds


async def test_organize_imports_on_save(plain_client: LanguageClient, project: Path):
    util = project / "geometry/util.py"
    open_document(plain_client, util)
    edits = await plain_client.text_document_will_save_wait_until_async(
        types.WillSaveTextDocumentParams(
            text_document=doc(util), reason=types.TextDocumentSaveReason.Manual
        )
    )
    new = apply_text_edits(util.read_text(), list(edits or []))
    assert "import os" not in new and "import sys" not in new
    assert "def double" in new


async def test_a_save_in_the_middle_of_applying_a_rename_leaves_the_rename_recognised(
    plain_client: LanguageClient, project: Path
):
    """Neovim applies a rename to every buffer but sends the other buffers' changes later
    (debounced); ``:wall`` asks for refactor-on-save of the first file before they come. An
    organize-imports on top of the rename's text would make the rename unrecognisable (the
    files never hold what it handed out), and every test of the renamed function would run
    as after a hand edit. The save waits for the next one instead."""
    util, app = project / "geometry/util.py", project / "app.py"
    open_document(plain_client, util)
    open_document(plain_client, app)
    edit = await rename(plain_client, util, "def quadruple", 4, "fourfold")
    assert edit is not None
    renamed_util = apply_text_edits(util.read_text(), text_edits(edit, util))
    change_document(plain_client, util, 2, renamed_util)
    on_save = await plain_client.text_document_will_save_wait_until_async(
        types.WillSaveTextDocumentParams(
            text_document=doc(util), reason=types.TextDocumentSaveReason.Manual
        )
    )
    change_document(plain_client, util, 3, apply_text_edits(renamed_util, list(on_save or [])))
    change_document(plain_client, app, 2, apply_text_edits(app.read_text(), text_edits(edit, app)))
    await until(
        lambda: any("applied rename `quadruple`" in m.message for m in plain_client.log_messages),
        "the rename's announcement",
        60,
    )
    # Once the rename is in every file, the next save organizes the imports.
    later = await plain_client.text_document_will_save_wait_until_async(
        types.WillSaveTextDocumentParams(
            text_document=doc(util), reason=types.TextDocumentSaveReason.Manual
        )
    )
    organized = apply_text_edits(
        apply_text_edits(renamed_util, list(on_save or [])), list(later or [])
    )
    assert "import os" not in organized and "def fourfold" in organized


async def test_a_save_does_not_wait_longer_than_on_save_timeout(
    plain_client: LanguageClient, project: Path
):
    """A refactoring on save that takes longer than ``onSaveTimeout`` is left out: the
    save goes on with the file as the user wrote it."""
    plain_client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"reks": {"onSaveTimeout": 0}})
    )
    util = project / "geometry/util.py"
    open_document(plain_client, util)
    edits = await plain_client.text_document_will_save_wait_until_async(
        types.WillSaveTextDocumentParams(
            text_document=doc(util), reason=types.TextDocumentSaveReason.Manual
        )
    )
    assert not edits


async def test_unsaved_buffer_is_refactored(vscode: LanguageClient, project: Path):
    util = project / "geometry/util.py"
    on_disk = util.read_text()
    buffer = on_disk.replace("return value * 2", "return value + value  # unsaved")
    vscode.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=util.as_uri(), language_id="python", version=3, text=buffer
            )
        )
    )
    offset = buffer.index("def double") + 4
    line = buffer.count("\n", 0, offset)
    character = offset - (buffer.rfind("\n", 0, offset) + 1)
    edit = await vscode.text_document_rename_async(
        types.RenameParams(
            text_document=doc(util), position=types.Position(line, character), new_name="twice"
        )
    )
    assert edit is not None and edit.document_changes is not None
    own = next(
        c
        for c in edit.document_changes
        if isinstance(c, types.TextDocumentEdit) and c.text_document.uri == util.as_uri()
    )
    assert own.text_document.version == 3  # the edit is for the buffer the editor holds
    new = apply_text_edits(buffer, list(own.edits))
    assert "def twice(value):\n    return value + value  # unsaved" in new
    assert util.read_text() == on_disk
