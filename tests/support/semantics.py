"""Helpers for the refactoring-semantics tests: write a program, refactor it with a real
engine, run it before and after."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.model import RefactorRequest


def run(path: Path) -> str:
    done = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=30, cwd=path.parent
    )
    return done.stdout + done.stderr


def refactor(
    project: tuple[Path, RefactorEngine], source: str, action: str, start: str, end: str, **args
) -> tuple[Path, str]:
    """Write ``source`` as main.py, refactor the text from ``start`` through ``end``, apply;
    return the file and the program's output before."""
    root, engine = project
    path = root / "main.py"
    text = textwrap.dedent(source)
    path.write_text(text)
    before = run(path)
    begin = text.index(start)
    finish = text.index(end, begin) + len(end)
    result = engine.compute(RefactorRequest(action, str(path), begin, finish, args))
    engine.apply(result, str(root))
    return path, before


def inline(project: tuple[Path, RefactorEngine], source: str, at: str) -> tuple[Path, str]:
    root, engine = project
    path = root / "main.py"
    text = textwrap.dedent(source)
    path.write_text(text)
    before = run(path)
    result = engine.compute(RefactorRequest("inline", str(path), text.index(at)))
    engine.apply(result, str(root))
    return path, before
