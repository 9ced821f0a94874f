"""End to end: a module renamed *and* moved in the file explorer (one
``workspace/willRenameFiles``) gets every import updated."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.support.geometry import apply_workspace_edit, project_tests_pass

pytestmark = [pytest.mark.timeout(90), pytest.mark.slow]


async def test_will_rename_files_renames_and_moves_a_module(vscode: LanguageClient, project: Path):
    (project / "tools").mkdir()
    (project / "tools/__init__.py").write_text("")
    old, new = project / "geometry/util.py", project / "tools/numbers.py"
    edit = await vscode.workspace_will_rename_files_async(
        types.RenameFilesParams(
            files=[types.FileRename(old_uri=old.as_uri(), new_uri=new.as_uri())]
        )
    )
    assert edit is not None
    apply_workspace_edit(edit)
    old.rename(new)  # the editor renames the file itself
    assert "from tools import numbers" in (project / "app.py").read_text()
    assert project_tests_pass(project)
