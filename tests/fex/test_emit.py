"""Emission and the CLI: the written pytest module passes on correct code (run by a real
pytest) and fails on code with a seeded bug."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_server.cli import main
from lsp_server.fex.model import FexError
from lsp_server.fex.run import Request, generate_for_project, module_name
from lsp_server.jobs import Cancelled, Job

from .conftest import EXAMPLES

METHODS = {
    "sorted_list": ("SortedList", "add,remove"),
    "bst": ("BinarySearchTree", "add,remove"),
    "red_black_tree": ("RedBlackTree", "add,remove"),
    "binomial_heap": ("BinomialHeap", "insert,extract_min"),
}


def project_with(tmp_path: Path, name: str) -> Path:
    shutil.copy(EXAMPLES / f"{name}.py", tmp_path / f"{name}.py")
    return tmp_path


def run_pytest(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", "-p", "no:reks"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )


def generate(root: Path, name: str, scope: int, *extra: str) -> int:
    cls, methods = METHODS[name]
    return main(
        ["fex", f"{name}:{cls}", "--scope", str(scope), "--methods", methods,
         "--root", str(root), "--python", sys.executable,
         "--out", str(root / f"test_fex_{name}.py"), *extra]
    )  # fmt: skip


SCOPES = {"bst": 4}
SEEDED_BUGS = {
    # add forgets to count the new node
    "sorted_list": ("        self.size += 1\n        return True", "        return True"),
    # remove of a node with two children takes the heir from the wrong side (needs a node
    # with two children whose left child has a right child: four nodes)
    "bst": ("heir_parent, heir = node, node.right", "heir_parent, heir = node, node.left"),
    # add does not repaint the root black
    "red_black_tree": ("        self.root.red = False\n", "        pass\n"),
    # extract_min leaves the parent pointers of the removed root's children set
    "binomial_heap": ("            child.parent = None\n", ""),
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with the four example structures and their emitted suites."""
    root = tmp_path_factory.mktemp("fex-project")
    for name in METHODS:
        project_with(root, name)
        assert generate(root, name, SCOPES.get(name, 3)) == 0
    return root


def test_emitted_suites_pass_on_correct_code(generated: Path) -> None:
    text = (generated / "test_fex_sorted_list.py").read_text()
    assert "def build_0() -> SortedList:" in text and "object.__new__(Node)" in text
    result = run_pytest(generated)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout


def test_seeded_bugs_in_add_and_remove_are_caught(generated: Path, tmp_path: Path) -> None:
    root = tmp_path / "mutated"
    shutil.copytree(generated, root)
    for name, (original, mutated) in SEEDED_BUGS.items():
        source = root / f"{name}.py"
        assert original in source.read_text()
        source.write_text(source.read_text().replace(original, mutated, 1))
    result = run_pytest(root)
    assert result.returncode == 1, result.stdout
    failed_files = {line.split("::")[0].split()[-1] for line in result.stdout.splitlines()
                    if line.startswith("FAILED")}  # fmt: skip
    assert failed_files == {f"test_fex_{name}.py" for name in SEEDED_BUGS}


def test_json_description(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project_with(tmp_path, "bst")
    assert generate(root, "bst", 4, "--json", "--route", "korat") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["route"] == "korat" and data["scope"] == 4
    assert len(data["inputs"]) <= data["size_bound"]
    assert data["stats"]["valid"] == 51
    assert [m["name"] for m in data["methods"]] == ["add", "remove"]
    keys = 4 + 2  # the key domain 0..3 and one more on each side
    assert data["tests"] == len(data["inputs"]) * (1 + keys + keys)


def test_cli_errors_are_clear(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plain.py").write_text(
        "from dataclasses import dataclass\n\n@dataclass\nclass Plain:\n    value: int\n"
    )
    code = main(["fex", "plain:Plain", "--scope", "2", "--root", str(tmp_path)])
    assert code == 1
    assert "Plain has no invariant" in capsys.readouterr().err
    root = project_with(tmp_path, "bst")
    assert generate(root, "bst", 7, "--route", "korat", "--budget", "3000") == 1
    assert "hit the candidate budget (3,000 candidates)" in capsys.readouterr().err


def test_cancellation_stops_the_worker(tmp_path: Path) -> None:
    root = project_with(tmp_path, "bst")
    job = Job()
    job.cancel()
    with pytest.raises(Cancelled):
        generate_for_project(root, Request("bst:BinarySearchTree", 9, "korat"), job, sys.executable)


def test_a_file_path_names_its_module(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    assert module_name(tmp_path, "src/pkg/lists.py") == "pkg.lists"
    assert module_name(tmp_path, "pkg/__init__.py") == "pkg"
    with pytest.raises(FexError, match="MODULE:CLASS"):
        generate_for_project(tmp_path, Request("nothing", 2))


STACK = """
from __future__ import annotations
from dataclasses import dataclass


@dataclass
class Cell:
    value: bool
    below: Cell | None


@dataclass(frozen=True)
class Stack:
    top: Cell | None

    def push(self, value: bool) -> Stack:
        return Stack(Cell(value, self.top))


def well_formed(stack: Stack) -> bool:
    seen = set()
    cell = stack.top
    while cell is not None:
        if id(cell) in seen:
            return False
        seen.add(id(cell))
        cell = cell.below
    return True
"""


def test_invariant_named_in_pyproject_and_frozen_classes(tmp_path: Path) -> None:
    (tmp_path / "stack.py").write_text(STACK)
    (tmp_path / "pyproject.toml").write_text('[tool.reks.fex]\ninvariant = "well_formed"\n')
    out = tmp_path / "test_stack_fex.py"
    code = main(["fex", "stack:Stack", "--scope", "2", "--methods", "push", "--root",
                 str(tmp_path), "--python", sys.executable, "--out", str(out)])  # fmt: skip
    assert code == 0
    text = out.read_text()
    assert "from stack import Cell, Stack, well_formed" in text
    assert "object.__setattr__(stack0, 'top', " in text
    assert "assert well_formed(target)" in text
    result = run_pytest(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
