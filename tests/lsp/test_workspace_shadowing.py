"""The language server and its rope worker start in the workspace folder (editors start
them there) and must not import the workspace's modules in place of their own: a project
with an ``asyncio.py``, or a copy of the standard library opened as a workspace, would
break them or make every start compile the copy from source (seconds; issue 15)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lsp_server.refactor.rope_spare import start_worker

SHADOWED = ("asyncio", "difflib", "symtable", "textwrap", "tokenize", "inspect", "ast")


def shadowing_workspace(root: Path) -> Path:
    """A folder whose modules named like the standard library's say when imported."""
    root.mkdir()
    for name in SHADOWED:
        (root / f"{name}.py").write_text(
            f"open({str(root / (name + '.imported'))!r}, 'w').close()\n"
            f"raise ImportError('the workspace module {name} was imported')\n"
        )
    return root


def imported(root: Path) -> list[str]:
    return sorted(p.stem for p in root.glob("*.imported"))


def test_the_server_does_not_import_the_workspace_modules(tmp_path: Path) -> None:
    root = shadowing_workspace(tmp_path / "ws")
    # stdin at its end: the server starts, finds no client and exits
    subprocess.run(
        [sys.executable, "-m", "lsp_server"],
        cwd=root,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    assert imported(root) == []


def test_the_rope_worker_does_not_import_the_workspace_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = shadowing_workspace(tmp_path / "ws")
    monkeypatch.chdir(root)  # the server's working directory, which its workers inherit
    worker = start_worker()
    worker.send({"root": str(root)})
    worker.close(grace=60)  # end of input: it exits once it has imported what it serves
    assert imported(root) == []
