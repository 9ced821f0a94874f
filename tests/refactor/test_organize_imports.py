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


LATE_IMPORT = (
    '"""Doc."""\n\nimport sys\nimport os\n\n\n'
    "def call(x):\n    return helper(x) + os.sep + sys.prefix\n\n\n"
    "from pkg.helpers import helper  # noqa: E402  (breaks an import cycle)\n"
)


def test_a_late_import_stays_after_the_definitions_it_followed(tmp_path: Path) -> None:
    """An import after definitions usually breaks an import cycle (toolz's functoolz.py):
    organizing sorts the block at the top and leaves the late import where it was."""
    organized = _organize(tmp_path, LATE_IMPORT)
    assert organized == LATE_IMPORT.replace("import sys\nimport os\n", "import os\nimport sys\n")


def test_only_a_late_import_left_to_organize_changes_nothing(tmp_path: Path) -> None:
    text = LATE_IMPORT.replace("import sys\nimport os\n", "import os\nimport sys\n")
    assert _organize(tmp_path, text) is None


def test_a_module_whose_imports_are_all_late(tmp_path: Path) -> None:
    text = "def call(x):\n    return helper(x)\n\n\nfrom pkg.helpers import helper\n"
    assert _organize(tmp_path, text) is None
