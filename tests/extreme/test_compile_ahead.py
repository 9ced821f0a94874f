"""The project's modules are compiled into the workers' private bytecode cache by a helper
while the first worker starts (``compile_ahead``): bytecode the workers' import accepts."""

from __future__ import annotations

import importlib.util
import os
import struct
import sys
from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.bytecode import PREFIX_VARIABLE, worker_environment
from lsp_server.extreme.compile_ahead import CompileAhead


def _cached(source: Path, prefix: str) -> Path:
    """Where the workers (``sys.pycache_prefix`` = ``prefix``) look for its bytecode."""
    saved = sys.pycache_prefix
    sys.pycache_prefix = prefix
    try:
        return Path(importlib.util.cache_from_source(str(source)))
    finally:
        sys.pycache_prefix = saved


def _accepted(source: Path, cached: Path) -> bool:
    """The bytecode passes the checks of the workers' import (timestamp-based)."""
    header = cached.read_bytes()[:16]
    flags, mtime, size = struct.unpack("<III", header[4:16])
    stat = source.stat()
    magic_ok = header[:4] == importlib.util.MAGIC_NUMBER
    return magic_ok and flags == 0 and mtime == int(stat.st_mtime) and size == stat.st_size


def test_the_helper_compiles_the_project_but_the_files_left_out(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "pkg/__init__.py": "",
            "pkg/m.py": "def inc(x):\n    return x + 1\n",
            "tests/test_m.py": "from pkg.m import inc\n\ndef test_inc():\n    assert inc(1) == 2\n",
            "tests/test_other.py": "def test_other():\n    pass\n",
        }
    ).resolve()
    env = worker_environment(root, os.environ)
    prefix = env[PREFIX_VARIABLE]
    left_out = root / "tests" / "test_other.py"
    helper = CompileAhead.start(root, sys.executable, env, [str(left_out)])
    assert helper is not None
    assert helper.process.wait(60) == 0
    for rel in ("pkg/__init__.py", "pkg/m.py", "tests/test_m.py"):
        assert _accepted(root / rel, _cached(root / rel, prefix)), rel
    assert not _cached(left_out, prefix).exists()
    assert not list(root.rglob("__pycache__"))  # nothing next to the sources
    assert CompileAhead.start(root, sys.executable, env, [str(left_out)]) is None  # all there


def test_no_helper_when_the_user_chose_a_cache_folder(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    env = worker_environment(tmp_path, {"PYTHONPYCACHEPREFIX": str(tmp_path / "mine")})
    assert CompileAhead.start(tmp_path, sys.executable, env) is None
