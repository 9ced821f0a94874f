"""Shared by the end-to-end tests and their client: the temporary project, running its
tests, and applying a WorkspaceEdit to disk as an editor does (ASCII test files: columns
are characters)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from lsprotocol import types

FILES = {
    "geometry/__init__.py": "",
    "geometry/shapes.py": """\
        class Shape:
            def area(self, scale):
                return 0 * scale

            def describe(self):
                return f"{type(self).__name__} of area {self.area(1)}"


        class Square(Shape):
            def __init__(self, side):
                self.side = side

            def area(self, scale):
                base = super().area(scale)
                return base + self.side * self.side * scale


        def total_area(shapes, scale=1):
            result = 0
            for shape in shapes:
                result += shape.area(scale)
            return result
        """,
    "geometry/util.py": """\
        import sys
        import os


        def double(value):
            return value * 2


        def quadruple(value):
            total = double(value) * 2
            return total
        """,
    "app.py": """\
        from geometry.shapes import Square, total_area
        from geometry import util


        def main():
            squares = [Square(2), Square(3)]
            return util.quadruple(total_area(squares))
        """,
    "tests/test_app.py": """\
        from app import main
        from geometry.shapes import Shape, Square


        def test_main():
            assert main() == 52


        def test_describe():
            assert "of area 4" in Square(2).describe()
            assert Shape().area(3) == 0
        """,
    "pyproject.toml": "[tool.pytest.ini_options]\npythonpath = ['.']\n",
}


def write_project(root: Path) -> None:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def project_tests_pass(root: Path) -> bool:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        print(done.stdout[-3000:])
    return done.returncode == 0


# -- applying a WorkspaceEdit as an editor does (ASCII test files: columns are characters) --
def _offset(text: str, pos: types.Position) -> int:
    lines = text.splitlines(keepends=True)
    if pos.line >= len(lines):
        return len(text)
    return sum(len(line) for line in lines[: pos.line]) + pos.character


def apply_text_edits(text: str, edits: list[Any]) -> str:
    spans = sorted(
        ((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def _path(uri: str) -> Path:
    return Path(uri.removeprefix("file://"))


def text_edits(edit: types.WorkspaceEdit, path: Path | None = None) -> list[Any]:
    """The text edits ``edit`` makes (to ``path`` only, if given), whether it holds them as
    ``changes`` or as ``documentChanges``."""
    found: list[Any] = []
    for uri, edits in (edit.changes or {}).items():
        if path is None or uri == path.as_uri():
            found += edits
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit) and (
            path is None or change.text_document.uri == path.as_uri()
        ):
            found += change.edits
    return found


def apply_workspace_edit(edit: types.WorkspaceEdit) -> list[Path]:
    """Apply to disk; returns the paths touched (old and new)."""
    touched: list[Path] = []
    for uri, edits in (edit.changes or {}).items():
        path = _path(uri)
        path.write_text(apply_text_edits(path.read_text(), list(edits)))
        touched.append(path)
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            path = _path(change.text_document.uri)
            path.write_text(apply_text_edits(path.read_text(), list(change.edits)))
            touched.append(path)
        elif isinstance(change, types.RenameFile):
            old, new = _path(change.old_uri), _path(change.new_uri)
            new.parent.mkdir(parents=True, exist_ok=True)
            old.rename(new)
            touched += [old, new]
        elif isinstance(change, types.CreateFile):
            path = _path(change.uri)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
            touched.append(path)
    return touched
