"""The functions the code lens uses."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from lsp_server.fex.editor import classes_with_rep_ok, generate_tests, lens_title
from lsp_server.jobs import Job

from .conftest import EXAMPLES


def test_classes_with_rep_ok_gives_names_lines_and_methods() -> None:
    source = (EXAMPLES / "sorted_list.py").read_text()
    (target,) = classes_with_rep_ok(source)
    assert target.name == "SortedList"
    assert source.splitlines()[target.line][target.column :].startswith("SortedList")
    assert target.methods == ("contains", "add", "remove")
    assert classes_with_rep_ok("class A:\n    def check(self): ...\n", "check")[0].name == "A"
    assert classes_with_rep_ok("class (:") == []
    assert lens_title(4) == "Generate field-exhaustive tests (scope 4)"


def test_generate_tests_writes_a_passing_module_with_progress(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "bst.py", tmp_path / "bst.py")
    (tmp_path / "pyproject.toml").write_text('[tool.reks.fex]\ninvariant = "rep_ok"\n')
    reports: list[str] = []
    job = Job(on_progress=lambda done, total, message: reports.append(message))
    suite, path = generate_tests(tmp_path, tmp_path / "bst.py", "BinarySearchTree", 3, job)
    assert path == tmp_path / "tests" / "test_bst_binarysearchtree_fex.py"
    assert [m.name for m in suite.methods] == ["contains", "add", "remove"]
    assert reports
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:reks", "tests"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
