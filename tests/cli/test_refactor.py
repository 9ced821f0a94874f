"""``reks refactor ...`` on a real temporary project."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.cli import main


def test_rename_prints_a_diff_and_writes_nothing(project: Path, capsys: pytest.CaptureFixture[str]):
    util = project / "geometry/util.py"
    before = util.read_text()
    line = before.splitlines().index("def double(value):") + 1
    assert main(["refactor", "rename", f"{util}:{line}:5", "twice", "--root", str(project)]) == 0
    out = capsys.readouterr().out
    assert "-def double(value):\n+def twice(value):" in out
    assert util.read_text() == before


def test_apply_writes_every_file(project: Path, run_tests):
    util = project / "geometry/util.py"
    lines = util.read_text().splitlines()
    row = next(i for i, x in enumerate(lines) if "double(value) * 2" in x) + 1
    col = lines[row - 1].index("double(value) * 2") + 1
    selection = f"{util}:{row}:{col}-{row}:{col + len('double(value) * 2')}"
    args = ["refactor", "extract-method", selection, "dbl2", "--apply", "--root", str(project)]
    assert main(args) == 0
    assert "def dbl2(value):" in util.read_text()
    assert (
        main(["refactor", "rename", str(util), "helpers", "--apply", "--root", str(project)]) == 0
    )
    assert (project / "geometry/helpers.py").exists() and not util.exists()
    assert run_tests(project).returncode == 0


def test_bad_name_is_an_error_and_changes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
):
    util = project / "geometry/util.py"
    before = {p: p.read_text() for p in project.rglob("*.py")}
    assert main(["refactor", "rename", f"{util}:5:5", "2x", "--apply", "--root", str(project)]) == 1
    assert "not a valid Python name" in capsys.readouterr().err
    assert {p: p.read_text() for p in project.rglob("*.py")} == before


def test_position_outside_the_file_is_reported(project: Path):
    util = project / "geometry/util.py"
    with pytest.raises(SystemExit, match="outside the file"):
        main(["refactor", "inline", f"{util}:999:1", "--root", str(project)])


def test_files_in_other_encodings_are_renamed_or_skipped_not_fatal(
    project: Path, capsys: pytest.CaptureFixture[str]
):
    pkg = project / "geometry"
    uses = "from geometry.util import double\nX = double(2)\n"
    (pkg / "marked.py").write_bytes(b"\xef\xbb\xbf" + uses.encode())
    latin = "# -*- coding: latin-1 -*-\nNAME = 'café'\n" + uses
    (pkg / "legacy.py").write_bytes(latin.encode("latin-1"))
    (pkg / "undeclared.py").write_bytes(("NAME = 'café'\n" + uses).encode("latin-1"))
    util = pkg / "util.py"
    line = util.read_text().splitlines().index("def double(value):") + 1
    args = ["refactor", "rename", f"{util}:{line}:5", "twice", "--apply", "--root", str(project)]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "skipped geometry/undeclared.py: not valid UTF-8" in err
    assert (pkg / "marked.py").read_bytes() == b"\xef\xbb\xbf" + uses.replace(
        "double", "twice"
    ).encode()
    assert (pkg / "legacy.py").read_bytes() == latin.replace("double", "twice").encode("latin-1")
    assert (pkg / "undeclared.py").read_bytes() == ("NAME = 'café'\n" + uses).encode("latin-1")
