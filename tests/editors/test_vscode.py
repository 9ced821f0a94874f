"""The VS Code extension: its lint and unit tests, and the packaged .vsix in a real code-server
driven through headless Chromium."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path

import pytest

from .codeserver import drive, running_code_server
from .project import CALC, write_project
from .tools import VSCODE_CLIENT, missing, node24


def _artifacts(tmp_path: Path, name: str) -> Path:
    """Screenshots and logs: $REKS_TEST_ARTIFACTS/<name> when set, else the test's tmp dir."""
    base = os.environ.get("REKS_TEST_ARTIFACTS")
    path = Path(base) / name if base else tmp_path / "artifacts"
    shutil.rmtree(path, ignore_errors=True)  # only this run's screenshots
    path.mkdir(parents=True)
    return path


def _npm_env() -> dict[str, str]:
    node = node24()
    path = os.environ.get("PATH", "")
    return {**os.environ, "PATH": f"{Path(node).parent}:{path}" if node else path}


def test_extension_lint_and_unit_tests() -> None:
    if shutil.which("npm") is None or not (VSCODE_CLIENT / "node_modules").is_dir():
        missing("vscode-client/node_modules is missing (cd vscode-client && npm ci)")
    for script in ("lint", "test"):
        proc = subprocess.run(
            ["npm", "run", "-s", script],
            cwd=VSCODE_CLIENT,
            env=_npm_env(),
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert proc.returncode == 0, (
            f"npm run {script}:\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}"
        )
    assert " passing" in proc.stdout and " failing" not in proc.stdout


def _recorded_then_edited(root: Path, unused_import: bool = False) -> Path:
    """The editor tests' project after `pytest --reks` and a hand edit of report(): its
    test must run."""
    workspace = write_project(root, unused_import=unused_import)
    recorded = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--reks"],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    (workspace / "calc.py").write_text(CALC.replace("    return total\n", "    return total + 0\n"))
    return workspace


def _interpreter_without_reks(tmp_path: Path) -> Path:
    """A venv with this interpreter's pytest (and what it needs) but no reks: a project's
    own environment. Linked, not installed, so that the test needs no package index."""
    from importlib.metadata import distribution

    from packaging.requirements import Requirement

    bare = tmp_path / "bare-venv"
    venv.create(bare, with_pip=False)
    linked = tmp_path / "pytest-only"
    linked.mkdir()
    todo, seen = ["pytest"], set()
    while todo:
        name = todo.pop()
        if name.lower() in seen:
            continue
        seen.add(name.lower())
        dist = distribution(name)
        for requirement in map(Requirement, dist.requires or []):
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
        for top in {f.parts[0] for f in dist.files or [] if f.parts[0] != ".."}:
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (linked / top).exists():
                (linked / top).symlink_to(source)
    site = next((bare / "lib").glob("python3*/site-packages"))
    (site / "pytest-only.pth").write_text(f"{linked}\n")
    return bare / "bin" / "python"


@pytest.mark.slow
def test_the_bundled_server_runs_with_an_interpreter_that_lacks_reks(tmp_path: Path) -> None:
    """Issue 16, item 3: installing the extension is all a VS Code user does."""
    python = _interpreter_without_reks(tmp_path)
    probe = subprocess.run(
        [python, "-c", "import lsp_server"], cwd=tmp_path, capture_output=True, check=False
    )
    assert probe.returncode != 0  # reks is really missing there
    assert subprocess.run([python, "-c", "import pytest"], cwd=tmp_path).returncode == 0
    workspace = _recorded_then_edited(tmp_path / "ws")
    artifacts = _artifacts(tmp_path, "vscode-bundled")
    settings = {"reks.server.pythonPath": str(python)}
    with running_code_server(tmp_path, workspace, settings, artifacts) as cs:
        result = drive(
            cs,
            "bundled",
            tmp_path,
            file="calc.py",
            expectProblem="must run",
            testingView={"test": "test_report", "after": "Passed"},
        )
    assert result["ok"], result.get("error", "") + result["driver_log"]
    assert any("must run" in row for row in result["problems"]), result["problems"]
    assert not any("not installed" in n for n in result["notifications"]), result
    # The Testing view (issue 16, item 7): the test that must run, then its result
    assert any("test_report" in row and "must run" in row for row in result["testRows"]), result
    assert any("test_report" in row and "Passed" in row for row in result["testRowsAfterRun"]), (
        result["testRowsAfterRun"]
    )
    output = result["output"].replace("\n", "")  # the output view wraps long lines
    assert f"reks is not installed in {python}: running the copy bundled" in output, output


class _ServerKiller(threading.Thread):
    """Kills the reks server of ``workspace`` (SIGKILL, as a crash) when the driver asks."""

    def __init__(self, workspace: Path, tmp: Path) -> None:
        super().__init__(daemon=True)
        self.workspace = workspace.resolve()
        self.request = tmp / "kill-request"
        self.done = tmp / "kill-done"
        self.killed: list[int] = []

    def _servers(self) -> list[int]:
        found = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                argv = (proc / "cmdline").read_bytes().split(b"\0")
                cwd = (proc / "cwd").resolve()
            except OSError:
                continue
            if b"lsp_server" in argv and b"-m" in argv and cwd == self.workspace:
                found.append(int(proc.name))
        return found

    def run(self) -> None:
        deadline = time.monotonic() + 280
        while not self.request.exists():
            if time.monotonic() > deadline:
                return
            time.sleep(0.2)
        for pid in self._servers():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                self.killed.append(pid)
        self.done.write_text("killed")


@pytest.mark.slow
def test_rename_and_extract_in_real_vscode(tmp_path: Path) -> None:
    # The developer ran the tests with reks, then edited report() by hand: the server says
    # test_report must run (a diagnostic in the Problems panel) as soon as it starts.
    workspace = _recorded_then_edited(tmp_path / "ws", unused_import=True)

    artifacts = _artifacts(tmp_path, "vscode-refactor")
    # Refactor-on-save: organize imports whenever a Python file is saved.
    settings = {
        "reks.server.pythonPath": sys.executable,
        "reks.onSave": ["organizeImports"],
        "reks.onSaveTimeout": 120,  # the test asks for the refactoring, not for the budget
    }
    crash = _ServerKiller(workspace, tmp_path)
    crash.start()
    with running_code_server(tmp_path, workspace, settings, artifacts) as cs:
        result = drive(
            cs,
            "refactor",
            tmp_path,
            timeout=300,
            file="calc.py",
            expectProblem="must run",
            rename={"line": 1, "column": 6, "oldName": "add", "newName": "plus"},
            # test_add is skipped (only the rename touched it), test_report still must run
            statusAfterRename="1 test skipped by refactorings · 1 affected",
            extract={
                "line": 9,
                "column": 5,
                "title": "Extract method",
                "defaultName": "extracted_method",
                "newName": "show_sum",
            },
            move={
                "line": 1,
                "column": 6,
                "title": "Move function `plus` to module",
                "pick": "helpers",
                "gone": "def plus(",
            },
            extreme={"expect": "`describe` is pseudo-tested"},
            crash={
                "request": str(crash.request),
                "done": str(crash.done),
            },
        )
    assert result["ok"], result.get("error", "") + "\n" + result["driver_log"]
    assert any("must run" in row for row in result["problems"]), result["problems"]
    crash.join()
    assert crash.killed, "the test found no server process to kill"
    assert result["restartLog"] and "starting it again" in result["restartLog"]
    assert any("must run" in row for row in result["problemsAfterRestart"])

    calc = (workspace / "calc.py").read_text()
    main = (workspace / "main.py").read_text()
    tests = (workspace / "test_calc.py").read_text()
    helpers = (workspace / "helpers.py").read_text()
    # renamed everywhere, then moved to helpers.py (picked in the quick pick)
    assert "def plus(a, b):" in helpers
    assert "def plus" not in calc and "def add" not in calc
    assert "plus(1, 2)" in main and "add(" not in main
    # main.py was saved after the rename: refactor-on-save removed its unused import
    assert "import os" not in main
    assert "plus(2, 3) == 5" in tests
    assert any("helpers" in choice for choice in result["moveChoices"]), result["moveChoices"]
    assert not any(choice.startswith("calc") for choice in result["moveChoices"])
    # the extracted method got the name typed into the rename box the extension opened
    assert "def show_sum(" in calc and "show_sum(total)" in calc
    assert "extracted_method" not in calc
    # the extreme analysis, run from the palette: describe() is pseudo-tested, and only it
    flagged = [row for row in result["extremeProblems"] if "is pseudo-tested" in row]
    assert len(flagged) == 1 and "`describe` is pseudo-tested" in flagged[0], flagged
    assert result["statusAfterRename"] == "1 test skipped by refactorings · 1 affected", result
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def _server_settings(cls: type, prefix: str = "") -> dict[str, object]:
    """Every setting the server reads, dotted, with its default."""
    import dataclasses

    keys: dict[str, object] = {}
    for f in dataclasses.fields(cls):
        default = (
            f.default_factory()  # type: ignore[misc]
            if f.default_factory is not dataclasses.MISSING
            else f.default
        )
        if dataclasses.is_dataclass(default):
            keys.update(_server_settings(type(default), f"{prefix}{f.name}."))
        else:
            keys[f"{prefix}{f.name}"] = default
    return keys


def test_every_server_setting_is_contributed_by_the_extension() -> None:
    import json

    from lsp_server.settings import Settings

    package = json.loads((VSCODE_CLIENT / "package.json").read_text(encoding="utf-8"))
    contributed = package["contributes"]["configuration"]["properties"]
    server_keys = _server_settings(Settings)
    assert "actions.extractMethod" in server_keys and "onSave" in server_keys
    missing_keys = [k for k in server_keys if f"reks.{k}" not in contributed]
    assert not missing_keys, f"settings the server reads but VS Code does not offer: {missing_keys}"
    for key, default in server_keys.items():
        spec = contributed[f"reks.{key}"]
        assert spec.get("markdownDescription"), key
        assert spec["default"] == default, (
            f"reks.{key}: VS Code {spec['default']!r}, server {default!r}"
        )
