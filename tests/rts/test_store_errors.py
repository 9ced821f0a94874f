"""Store errors on real damaged, read-only and locked SQLite files: each is reported with
the advice for its class, never as a traceback, and never turns into a wrong selection."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.cli import main
from lsp_server.rts.store import DependencyStore, StoreError, schema, store_error, store_path

_PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project of 40 modules and tests, recorded once (a store of about 80 KB)."""
    root = tmp_path_factory.mktemp("recorded")
    for i in range(40):
        (root / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
        (root / f"test_m{i}.py").write_text(
            f"from m{i} import f{i}\n\n\ndef test_{i}():\n    assert f{i}(1) == {i + 1}\n"
        )
    subprocess.run([*_PYTEST, "--reks"], cwd=root, check=True, capture_output=True)
    return root


@pytest.fixture
def project(recorded: Path, tmp_path: Path) -> Path:
    root = tmp_path / "p"
    shutil.copytree(recorded, root)
    return root


def _damage_a_page(root: Path) -> None:
    """The issue's damage: 1,000 random bytes at offset 19,384 of the store."""
    noise = random.Random(15).randbytes(1000)
    with open(store_path(root), "r+b") as handle:
        handle.seek(19_384)
        handle.write(noise)


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from lsp_server.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=root, capture_output=True, text=True
    )


def test_a_damaged_page_is_reported_as_corruption_with_the_way_out(project: Path) -> None:
    _damage_a_page(project)
    affected = _cli(project, "affected")
    assert affected.returncode == 2
    assert "is corrupt" in affected.stderr and "reks store --rebuild" in affected.stderr
    assert "Traceback" not in affected.stderr
    run = subprocess.run([*_PYTEST, "--reks"], cwd=project, capture_output=True, text=True)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR
    output = run.stdout + run.stderr
    assert "INTERNALERROR" not in output and "is corrupt" in output
    assert "passed" not in output  # no test ran on a selection read from a damaged store


def test_a_damage_met_after_opening_is_reported_not_raised(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Larger stores are not checked on opening: a damaged page met by a query is still
    told as corruption."""
    monkeypatch.setattr(schema, "QUICK_CHECK_MAX_BYTES", 0)
    _damage_a_page(project)
    assert main(["affected", "--root", str(project)]) == 2
    err = capsys.readouterr().err
    assert "is corrupt" in err and "reks store --rebuild" in err


@pytest.fixture
def read_only_store(project: Path) -> Iterator[Path]:
    """The store's folder and file made immutable (``chattr +i``: root ignores modes)."""
    folder = store_path(project).parent
    for name in ("deps.sqlite-wal", "deps.sqlite-shm"):
        (folder / name).unlink(missing_ok=True)
    targets = [folder / "deps.sqlite", folder]
    if os.geteuid() != 0:
        for target in targets:
            target.chmod(0o555 if target.is_dir() else 0o444)
    elif subprocess.run(["chattr", "+i", *map(str, targets)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        yield project
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", *map(str, targets)], check=True)
        for target in targets:
            target.chmod(0o755 if target.is_dir() else 0o644)


def test_a_read_only_store_is_read_by_reading_commands(read_only_store: Path) -> None:
    root = read_only_store
    affected = _cli(root, "affected")
    assert affected.returncode == 0, affected.stderr
    assert "0 affected, 40 unaffected" in affected.stderr
    info = _cli(root, "store", "--info")
    assert info.returncode == 0 and "integrity:    ok" in info.stdout


def test_a_read_only_store_is_not_called_corrupt_by_recording_runs(read_only_store: Path) -> None:
    for flag in ("--reks", "--reks-all"):
        run = subprocess.run([*_PYTEST, flag], cwd=read_only_store, capture_output=True, text=True)
        output = run.stdout + run.stderr
        assert run.returncode == pytest.ExitCode.USAGE_ERROR, output
        assert "read-only" in output and "corrupt" not in output and "--rebuild" not in output
    assert store_path(read_only_store).exists()
    assert not store_path(read_only_store).with_name("deps.sqlite.bak").exists()


@pytest.mark.parametrize(
    ("message", "advice"),
    [
        ("database or disk is full", "is full"),
        ("disk I/O error", "disk or file-system error"),
        ("database is locked", "locked by another process"),
        ("attempt to write a readonly database", "read-only"),
        ("database disk image is malformed", "reks store --rebuild"),
        ("file is not a database", "reks store --rebuild"),
    ],
)
def test_every_sqlite_error_class_has_its_own_advice(
    tmp_path: Path, message: str, advice: str
) -> None:
    error = store_error(
        tmp_path / ".reks/deps.sqlite", sqlite3.OperationalError(message), writing=True
    )
    assert advice in str(error)
    assert ("--rebuild" in str(error)) == (advice == "reks store --rebuild")


def test_a_missing_store_is_not_created_by_a_reading_command(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="run `pytest --reks` first"):
        DependencyStore(tmp_path, read_only=True)
    assert not (tmp_path / ".reks").exists()
