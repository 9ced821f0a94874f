"""The VS Code extension: its lint and unit tests, and the packaged .vsix in a real code-server
driven through headless Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from .codeserver import drive, running_code_server
from .tools import VSCODE_CLIENT, missing, node24


def _artifacts(tmp_path: Path, name: str) -> Path:
    """Screenshots and logs: $REKS_TEST_ARTIFACTS/<name> when set, else the test's tmp dir."""
    base = os.environ.get("REKS_TEST_ARTIFACTS")
    path = Path(base) / name if base else tmp_path / "artifacts"
    path.mkdir(parents=True, exist_ok=True)
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


@pytest.mark.slow
def test_missing_reks_names_the_pip_command(tmp_path: Path) -> None:
    # An interpreter without reks: the extension must say so, with the command that fixes it.
    bare = tmp_path / "bare-venv"
    venv.create(bare, with_pip=False)
    python = bare / "bin" / "python"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    artifacts = _artifacts(tmp_path, "vscode-missing")
    settings = {"reks.server.pythonPath": str(python)}
    with running_code_server(tmp_path, workspace, settings, artifacts) as cs:
        result = drive(cs, "missing", tmp_path)
    assert result["ok"], result.get("error", "") + result["driver_log"]
    assert f"reks is not installed in {python}" in result["message"]
    assert f"{python} -m pip install reks" in result["message"]
    assert sys.executable not in result["message"]
