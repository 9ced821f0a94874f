"""Applying a refactoring writes every file or none: a failure at any step, or a crash
between two steps, leaves the project as it was and no temporary file behind; files keep
their encoding; a file deleted or changed since the refactoring was computed aborts it."""

from __future__ import annotations

import builtins
import errno
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lsp_server.refactor import apply as apply_module
from lsp_server.refactor.apply import JOURNAL, apply_edits, recover_interrupted_apply
from lsp_server.refactor.model import Edit, FileCreate, FileEdit, FileRename, RefactoringError

LATIN1 = "# -*- coding: latin-1 -*-\nname = 'café'\n"


def _project(root: Path) -> None:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "core.py").write_text("def target():\n    return 1\n")
    for name in ("tabs", "lists", "views"):
        (root / "pkg" / f"{name}.py").write_text(
            f"from pkg.core import target\n\n{name} = target()\n"
        )
    (root / "pkg" / "legacy.py").write_bytes(LATIN1.encode("latin-1"))
    (root / "pkg" / "bom.py").write_bytes(b"\xef\xbb\xbfvalue = 1\n")


def _edits(root: Path) -> list[Edit]:
    pkg = root / "pkg"
    out: list[Edit] = []
    for name in ("core", "tabs", "lists", "views"):
        old = (pkg / f"{name}.py").read_text()
        out.append(FileEdit(str(pkg / f"{name}.py"), old, old.replace("target", "tgt")))
    out.append(FileEdit(str(pkg / "legacy.py"), LATIN1, LATIN1.replace("name", "label")))
    out.append(FileEdit(str(pkg / "bom.py"), "value = 1\n", "amount = 1\n"))
    out.append(FileCreate(str(root / "extra" / "deep" / "new.py"), "x = 1\n"))
    out.append(FileRename(str(pkg / "views.py"), str(root / "moved" / "views.py")))
    return out


def _tree(root: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


class _Faults:
    """Fails the ``fail_at``-th file operation the apply module makes (once)."""

    NAMES = ("replace", "mkdir", "chmod", "fdopen", "fsync", "remove")

    def __init__(self, fail_at: int) -> None:
        self.fail_at = fail_at
        self.count = 0

    def wrap(self, name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def operation(*args: Any, **kwargs: Any) -> Any:
            if sys._getframe(1).f_code.co_filename == apply_module.__file__:
                self.count += 1
                if self.count == self.fail_at:
                    raise OSError(errno.EIO, f"injected failure of {name}")
            return real(*args, **kwargs)

        return operation

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        for name in self.NAMES:
            monkeypatch.setattr(os, name, self.wrap(name, getattr(os, name)))
        monkeypatch.setattr(builtins, "open", self.wrap("open", builtins.open))


def _operations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    root = tmp_path / "count"
    _project(root)
    with monkeypatch.context() as patch:
        counter = _Faults(fail_at=0)
        counter.install(patch)
        apply_edits(_edits(root), journal_dir=str(root / ".reks"))
    return counter.count


def test_a_successful_apply_writes_everything_in_each_files_encoding(tmp_path: Path) -> None:
    _project(tmp_path)
    apply_edits(_edits(tmp_path), journal_dir=str(tmp_path / ".reks"))
    pkg = tmp_path / "pkg"
    assert (
        "tgt" in (pkg / "tabs.py").read_text()
        and "tgt" in (tmp_path / "moved/views.py").read_text()
    )
    assert (pkg / "legacy.py").read_bytes() == LATIN1.replace("name", "label").encode("latin-1")
    assert (pkg / "bom.py").read_bytes() == b"\xef\xbb\xbfamount = 1\n"
    assert (tmp_path / "extra/deep/new.py").read_text() == "x = 1\n"
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".reks-") or p.name == JOURNAL]


def test_a_failure_at_any_step_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = _operations(tmp_path, monkeypatch)
    assert steps > 20  # every write, backup, replace, folder and rename is a step
    applied = tmp_path / "applied"
    _project(applied)
    apply_edits(_edits(applied), journal_dir=str(applied / ".reks"))
    for step in range(1, steps + 1):
        root = tmp_path / f"step{step}"
        _project(root)
        before = _tree(root)
        with monkeypatch.context() as patch:
            _Faults(step).install(patch)
            try:
                apply_edits(_edits(root), journal_dir=str(root / ".reks"))
            except RefactoringError:
                after = {k: v for k, v in _tree(root).items() if k != ".reks"}
                assert after == before, f"a failure at step {step} left the project changed"
                continue
        # Past the commit point only removing a temporary file can fail: the apply stands.
        kept = {k: v for k, v in _tree(root).items() if ".reks" not in k}
        assert kept == {k: v for k, v in _tree(applied).items() if ".reks" not in k}, step
        assert not (root / ".reks" / JOURNAL).exists()


_CRASH = """
import os, sys
from lsp_server.refactor import apply as module
sys.path.insert(0, {tests!r})
from test_apply import _edits
from pathlib import Path
real, count = os.replace, [0]
def replace(*args):
    count[0] += 1
    if count[0] == {at}:
        os._exit(9)  # killed between two replaces: nothing runs after this
    return real(*args)
os.replace = replace
module.apply_edits(_edits(Path({root!r})), journal_dir={journal!r})
"""


@pytest.mark.parametrize("at", [2, 5, 8])
def test_a_crash_between_two_replaces_is_undone_by_the_next_apply(tmp_path: Path, at: int) -> None:
    _project(tmp_path)
    before = _tree(tmp_path)
    journal = str(tmp_path / ".reks")
    script = _CRASH.format(
        tests=str(Path(__file__).parent), at=at, root=str(tmp_path), journal=journal
    )
    crashed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert crashed.returncode == 9, crashed.stderr
    assert _tree(tmp_path) != before  # the crash did leave the project half applied
    assert recover_interrupted_apply(journal)
    after = {k: v for k, v in _tree(tmp_path).items() if not k.startswith(".reks")}
    assert after == before


def test_a_deleted_or_changed_file_aborts_the_apply(tmp_path: Path) -> None:
    _project(tmp_path)
    edits = _edits(tmp_path)
    (tmp_path / "pkg" / "lists.py").unlink()
    before = _tree(tmp_path)
    with pytest.raises(RefactoringError, match="deleted since"):
        apply_edits(edits)
    assert _tree(tmp_path) == before
    _project(tmp_path / "again")
    edits = _edits(tmp_path / "again")
    (tmp_path / "again" / "pkg" / "tabs.py").write_text("changed = 1\n")
    with pytest.raises(RefactoringError, match="changed since"):
        apply_edits(edits)
    assert not (tmp_path / "again" / "pkg" / "lists.py").read_text().count("tgt")
