"""Organize imports touches nothing but the imports, and nothing when they are organized
(rope's own organizer also drops the blank lines after a module docstring)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.model import FileEdit, RefactoringError, RefactorRequest


def _organize(tmp_path: Path, text: str) -> str | None:
    """The organized text, or None when reks has nothing to change."""
    path = tmp_path / "m.py"
    path.write_text(text)
    engine = RefactorEngine()
    engine.add_root(str(tmp_path))
    try:
        result = engine.compute(RefactorRequest("organize-imports", str(path), 0))
    except RefactoringError as exc:
        assert "nothing to change" in str(exc)
        return None
    finally:
        engine.close()
    [edit] = [e for e in result.edits if isinstance(e, FileEdit)]
    return edit.new_text


@pytest.mark.parametrize(
    "text",
    [
        '"""Doc."""\n\n\nclass A:\n    pass\n',
        '"""Doc."""\n\nimport os\n\n\nclass A:\n    x = os.sep\n',
        "import os\nimport sys\n\n\n\nprint(os, sys)\n",
    ],
    ids=["no-imports", "organized-after-docstring", "organized-three-blank-lines"],
)
def test_nothing_changes_when_imports_are_organized(tmp_path: Path, text: str) -> None:
    assert _organize(tmp_path, text) is None


def test_only_the_import_block_changes(tmp_path: Path) -> None:
    text = (
        '"""Doc."""\n\nimport sys\nimport os\nimport json\n\n\n\n'
        "class A:\n    x = os.sep + sys.prefix\n"
    )
    organized = _organize(tmp_path, text)
    assert organized == (
        '"""Doc."""\n\nimport os\nimport sys\n\n\n\nclass A:\n    x = os.sep + sys.prefix\n'
    )


def test_every_import_unused(tmp_path: Path) -> None:
    text = '"""Doc."""\n\nimport os\n\n\ndef f():\n    return 1\n'
    assert _organize(tmp_path, text) == '"""Doc."""\n\n\ndef f():\n    return 1\n'
