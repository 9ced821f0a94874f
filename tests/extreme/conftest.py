from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lsp_server.extreme.warm import WarmPools


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    def make(files: dict[str, str]) -> Path:
        root = tmp_path / "project"
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        return root

    return make


@pytest.fixture
def warm_pools() -> Iterator[WarmPools]:
    """Warm workers kept between a test's analyses (the server's), closed after it."""
    pools = WarmPools()
    yield pools
    pools.close()


REKS = [sys.executable, "-c", "import sys; from lsp_server.cli import main; sys.exit(main())"]
"""The ``reks`` command, run by the interpreter of this test session."""

INC_MODULE = """
def inc(x):
    y = x + 1
    return y
"""
"""A module with one small function, for tests about how the runner treats its tests."""

LOOP_MODULE = """
def ready(state):
    if state["n"] >= 3:
        return True
    return False

def advance(state):
    while not ready(state):
        state["n"] += 1
    return state["n"]
"""
"""A loop that never ends when ``ready -> return False``: that transformation times out."""


def plain_run(root: Path) -> None:
    """A run of the user's (plain pytest in ``root``): it writes what the project's options
    and conftest ask for; it must pass."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def verdict_rows(analysis: object) -> list[tuple[str, str, str]]:
    """(function, body, verdict) of each result of an analysis, in its order."""
    return [
        (r.transformation.function, r.transformation.body, r.verdict.value)
        for r in analysis.results  # type: ignore[attr-defined]
    ]


def stamped_later(path: Path) -> None:
    """Give ``path`` a modification time a minute from now: bytecode the workers write of
    it is older than its stamp, so dropped as unsure (``extreme.bytecode``) at their next
    start, as bytecode written within the second of an edit is."""
    later = time.time_ns() + 60 * 10**9
    os.utime(path, ns=(later, later))


def rewritten_with_the_same_stamp(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` keeping its modification time, as two writes within one
    tick of a file system's clock (a second on some) get; with the same size, only the
    bytes say the file changed."""
    stamp = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(stamp, stamp))
