"""The workers keep bytecode (and pytest's rewritten test modules) in a private cache under
``.reks/``, never next to the user's sources, and drop bytecode that may be stale."""

from __future__ import annotations

import importlib.util
import os
import py_compile
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest

import lsp_server
from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.bytecode import (
    PREFIX_VARIABLE,
    drop_unsure_bytecode,
    worker_environment,
)

from .conftest import INC_MODULE


@pytest.mark.slow  # ~3-7 s: a whole analysis
def test_workers_write_bytecode_only_into_the_private_cache(
    make_project: Callable[[dict[str, str]], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # the user wants none in the tree
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    root = make_project(
        {"m.py": INC_MODULE, "test_m.py": "from m import inc\n\ndef test_inc():\n    inc(1)\n"}
    )
    # reks's bytecode beside it, as any install has but one under PYTHONDONTWRITEBYTECODE.
    own = Path(lsp_server.__file__).parent
    py_compile.compile(
        str(own / "__init__.py"), cfile=importlib.util.cache_from_source(str(own / "__init__.py"))
    )
    analyse(root, Options(jobs=1, incremental=False))
    cached = {p.name.split(".")[0] for p in (root / ".reks" / "pycache").rglob("*.pyc")}
    assert {"m", "test_m"} <= cached
    assert not list(root.rglob("__pycache__"))
    # The standard library and installed packages keep the bytecode they were installed
    # with: compiling them again into every project's cache cost each first analysis ~1 s.
    # (Plugins whose asserts pytest rewrites are pytest's to cache, under its own name.)
    cache = root / ".reks" / "pycache"
    installed = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    compiled_again = [
        p
        for p in cache.rglob("*.pyc")
        if "-pytest-" not in p.name
        and any(("/" / p.relative_to(cache)).is_relative_to(i) for i in installed)
    ]
    assert compiled_again == []
    # Nor does reks itself (an editable install, outside site-packages, included): the
    # workers compiled ~20 of its modules into each new project's cache.
    assert [
        p for p in cache.rglob("*.pyc") if ("/" / p.relative_to(cache)).is_relative_to(own)
    ] == []


def test_bytecode_that_may_be_stale_is_dropped(tmp_path: Path) -> None:
    sources = tmp_path / "src"
    sources.mkdir()
    prefix = tmp_path / "cache"
    folder = prefix / sources.relative_to("/")
    folder.mkdir(parents=True)
    tag = sys.implementation.cache_tag
    for name, edited_after in [("old", -100.0), ("same_second", 0.5), ("gone", None)]:
        cached = folder / f"{name}.{tag}.pyc"
        cached.write_bytes(b"")
        os.utime(cached, (1_000_000.0, 1_000_000.0))
        if edited_after is not None:
            source = sources / f"{name}.py"
            source.write_text("x = 1\n")
            os.utime(source, (1_000_000.0 + edited_after,) * 2)
    assert drop_unsure_bytecode(prefix) == 2
    assert [p.name.split(".")[0] for p in folder.iterdir()] == ["old"]


def test_a_cache_folder_the_user_chose_is_kept(tmp_path: Path) -> None:
    env = worker_environment(tmp_path, {"PYTHONPYCACHEPREFIX": "/elsewhere"})
    assert env["PYTHONPYCACHEPREFIX"] == "/elsewhere"
    assert PREFIX_VARIABLE not in env
    env = worker_environment(tmp_path, {})
    assert env["PYTHONDONTWRITEBYTECODE"] == "1"  # processes the tests start: as before
    assert env[PREFIX_VARIABLE] == str(tmp_path / ".reks" / "pycache")
