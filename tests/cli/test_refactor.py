"""``reks refactor ...`` on a real temporary project."""

from __future__ import annotations

import json
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


def test_apply_refuses_a_task_the_trust_checks_would_demote_unless_forced(
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    # A known-failure shape without features: every extract method would be demoted.
    shapes = tmp_path / "known_failures.json"
    shape = {"engine": "reks", "refactoring": "extract-method", "oracle": "output-changed"}
    data = {"version": 1, "engines": {"rope": ""}, "shapes": [{**shape, "features": []}]}
    shapes.write_text(json.dumps(data))
    monkeypatch.setenv("REKS_KNOWN_FAILURES", str(shapes))
    util = project / "geometry/util.py"
    before = util.read_text()
    lines = before.splitlines()
    row = next(i for i, x in enumerate(lines) if "double(value) * 2" in x) + 1
    col = lines[row - 1].index("double(value) * 2") + 1
    selection = f"{util}:{row}:{col}-{row}:{col + len('double(value) * 2')}"
    args = ["refactor", "extract-method", selection, "dbl2", "--apply", "--root", str(project)]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "not applied: REKS would treat it as a hand edit" in err
    assert "known reks failure of extract-method" in err and "--force" in err
    assert util.read_text() == before
    assert main([*args, "--force"]) == 0
    assert "def dbl2(value):" in util.read_text()


def test_diff_of_a_move_into_a_new_module_shows_its_text(
    project: Path, capsys: pytest.CaptureFixture[str]
):
    util = project / "geometry/util.py"
    line = util.read_text().splitlines().index("def quadruple(value):") + 1
    destination = "geometry.scaling"
    args = ["refactor", "move", f"{util}:{line}:5", destination, "--root", str(project)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "create geometry/scaling.py" in out
    assert "+def quadruple(value):" in out
    assert not (project / "geometry/scaling.py").exists()


DISPATCH = """\
class Job:
    def run_step(self):
        return 1


print(Job().run_step(), getattr(Job(), "run_step")())
"""


def test_apply_with_uncertain_changes_needs_yes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / "dispatch.py"
    path.write_text(DISPATCH)
    args = ["refactor", "rename", f"{path}:2:9", "execute", "--apply", "--root", str(tmp_path)]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "dispatch.py:6:41: a string" in err and "--yes" in err
    assert path.read_text() == DISPATCH
    assert main([*args, "--yes"]) == 0
    assert path.read_text() == DISPATCH.replace("run_step", "execute")


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
