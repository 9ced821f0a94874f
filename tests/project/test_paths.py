"""Which file names ``ProjectPaths`` takes for the project's own files."""

from __future__ import annotations

from pathlib import Path

from lsp_server.project.files import ProjectPaths


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "core.py").write_text("x = 1\n")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "lib.py").write_text("y = 2\n")
    return root, outside


def test_names_reaching_project_files_through_links_are_the_projects(tmp_path: Path) -> None:
    root, outside = _tree(tmp_path)
    (outside / "linked_pkg").symlink_to(root / "pkg", target_is_directory=True)
    (outside / "linked_core.py").symlink_to(root / "pkg" / "core.py")
    (outside / "deep").mkdir()
    (outside / "deep" / "up").symlink_to(root, target_is_directory=True)
    paths = ProjectPaths(root)
    assert paths.rel(str(outside / "linked_pkg" / "core.py")) == "pkg/core.py"
    assert paths.rel(str(outside / "linked_core.py")) == "pkg/core.py"
    assert paths.rel(str(outside / "deep" / "up" / "pkg" / "core.py")) == "pkg/core.py"
    # A file not there yet, in a linked folder, is named the same way.
    assert paths.rel(str(outside / "linked_pkg" / "new.py")) == "pkg/new.py"


def test_files_outside_the_project_are_not_its_own(tmp_path: Path) -> None:
    root, outside = _tree(tmp_path)
    (root / "pkg" / "out_link.py").symlink_to(outside / "lib.py")
    paths = ProjectPaths(root)
    assert paths.rel(str(outside / "lib.py")) is None
    assert not paths.is_python_file(str(outside / "lib.py"))
    assert paths.is_python_file(str(root / "pkg" / "core.py"))
    # A name inside the project is the project's, wherever its link points.
    assert paths.rel(str(root / "pkg" / "out_link.py")) == "pkg/out_link.py"
    assert not paths.is_python_file("<string>")
