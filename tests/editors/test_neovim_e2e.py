"""End to end in real headless Neovim (0.7.2 and 0.11) against the real reks server over stdio:
rename through vim.lsp.buf.rename, extract method through the built-in code-action UI, extract
a variable with reks.lua's name prompt, move a function with its destination prompt, and
refactor-on-save; then the files on disk and the diagnostics the buffer got."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .nvim import run_lua
from .project import write_project
from .tools import Neovim

SCRIPT = (Path(__file__).parent / "e2e_refactor.lua").read_text(encoding="utf-8")


@pytest.mark.slow
def test_refactorings_in_real_neovim(nvim: Neovim, tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj")
    # Record the tests' dependencies first, as a developer who ran `pytest --reks` has.
    recorded = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--reks"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    script = f"PYTHON = {_lua_str(sys.executable)}\nINPUTS = {{}}\nPICKS = {{}}\n" + SCRIPT
    result = run_lua(nvim, script, tmp_path, cwd=root, files=[root / "calc.py"], timeout=300)

    calc = (root / "calc.py").read_text()
    helpers = (root / "helpers.py").read_text()
    main = (root / "main.py").read_text()
    tests = (root / "test_calc.py").read_text()
    # rename reached every module, then the move took `plus` to helpers.py
    assert "def plus(a, b):" in helpers
    assert "def add" not in calc and "def plus" not in calc
    assert "plus(" in main and "add(" not in main
    assert "plus(2, 3)" in tests
    # extract method, then extract variable with the name typed at the prompt
    assert "def extracted_method(" in calc
    assert "doubled = total * 2 + 1" in calc
    # refactor-on-save organized the imports: the unused ones are gone
    assert "import os" not in calc and "import sys" not in calc and "json" not in calc
    assert result["buffer"] == calc.rstrip("\n")
    # the prompts a person would have seen
    assert any("name" in (p or "").lower() for p in result["answers"]["input"])
    pick_prompts = [s["prompt"] for s in result["answers"]["select"]]
    assert "Move to module:" in pick_prompts
    assert all("missing" not in s for s in result["answers"]["select"]), result["answers"]
    # what the server published: after the rename both tests are skipped (REKS), with the
    # reason on each test function; after the hand edit of report() its test must run.
    after_rename = result["snapshots"]["rename"]
    assert after_rename["status"]["skipped"] == 2, after_rename
    assert after_rename["status"]["affected"] == 0, after_rename
    assert after_rename["statusline"] == "2 tests skipped by refactorings · 0 affected"
    hints = [d for d in after_rename["diagnostics"] if d["file"] == "test_calc.py"]
    assert sorted(d["lnum"] for d in hints) == [3, 7], after_rename
    assert all(d["source"] == "reks" for d in hints)
    assert all("skipped: affected only by rename `add` -> `plus`" in d["message"] for d in hints)
    after_edit = result["snapshots"]["hand_edit"]
    assert "test_calc.py::test_report" in after_edit["status"]["affectedTests"], after_edit
    test_report_line = tests.splitlines().index("def test_report():")
    must_run = [
        d
        for d in after_edit["diagnostics"]
        if d["file"] == "test_calc.py"
        and d["lnum"] == test_report_line
        and "must run" in d["message"]
    ]
    # (why it must run depends on the REKS verdicts of the earlier move and extracts; the hand
    # edit alone already makes it run)
    assert must_run and "changed" in must_run[0]["message"], (after_edit, tests)
    assert "return total + 0" in calc
    # :ReksRunAffectedTests ran them through the server; afterwards nothing must run
    after_run = result["snapshots"]["after_run"]
    assert after_run["command"]["name"] == "reks.runAffectedTests", after_run
    assert after_run["command"].get("err") is None, after_run
    assert after_run["status"]["affected"] == 0, after_run
    assert not [d for d in after_run["diagnostics"] if "must run" in d["message"]], after_run
    # :ReksExtremeAnalysis ran the extreme analysis through the server
    extreme = result["snapshots"]["extreme"]
    assert extreme["command"]["name"] == "reks.analyseWeakTests", extreme
    assert extreme["command"].get("err") is None, extreme
    flagged = [d for d in extreme["diagnostics"] if "is pseudo-tested" in d["message"]]
    # describe() checks nothing; extracted_method() only prints
    extracted_line = calc.splitlines().index("def extracted_method(total):")
    assert sorted((d["file"], d["lnum"]) for d in flagged) == [
        ("calc.py", extracted_line),
        ("stats.py", 0),
    ], extreme
    assert any("`describe` is pseudo-tested" in d["message"] for d in flagged)
    # the project still works
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(root)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = subprocess.run(
        [sys.executable, "main.py"], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["3", "sum", "13", "6"]


def _lua_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
