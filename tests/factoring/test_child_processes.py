"""A boundary whose environment runs the project's own code in a child process is refused:
the replay would never run that code, so the factored test would pass whatever T does."""

from __future__ import annotations

from pathlib import Path

from tests.factoring.helpers import factor, make_project

LOGIC = """
import subprocess
import sys


def shout(text):
    return text.upper()


def shout_in_child(text):
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", text], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def echo_in_child(text):
    done = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.argv[1])", text],
        capture_output=True, text=True, check=True,
    )
    return done.stdout.strip()
"""

CLI = """
import sys

from app.logic import shout

print(shout(sys.argv[1]))
"""

TESTS = """
from app import logic


def test_cli():
    assert logic.shout_in_child("hi") == "HI"


def test_echo():
    assert logic.echo_in_child("hi") == "hi"
"""


def _project(tmp_path: Path) -> Path:
    root = make_project(tmp_path, LOGIC, TESTS)
    (root / "app" / "cli.py").write_text(CLI, encoding="utf-8")
    return root


def test_a_child_running_project_code_makes_the_boundary_refused(tmp_path: Path) -> None:
    result = factor(_project(tmp_path), "tests/test_logic.py::test_cli", "subprocess")
    assert result.status == "refused"
    assert "child process" in result.reason and "app.cli" in result.reason, result.reason
    assert not list((tmp_path / "tests").glob("test_factored__*"))


def test_a_child_running_a_tool_keeps_the_boundary(tmp_path: Path) -> None:
    result = factor(_project(tmp_path), "tests/test_logic.py::test_echo", "subprocess")
    assert result.status == "factored", result.reason


SCRIPT_TESTS = """
import subprocess
import sys


def test_script(tmp_path):
    script = tmp_path / "outside.py"
    script.write_text(
        "import importlib, os, sys; sys.path.insert(0, os.getcwd()); "
        "print(importlib.import_module('app.cli_helper').X)"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.stdout.strip() == "42"
"""


def test_a_test_whose_t_runs_only_inside_e_is_refused(tmp_path: Path) -> None:
    # The child imports the project by a name no static look at its command line can see:
    # the test itself runs no project code outside E, so its factored test would check
    # nothing of T.
    root = make_project(tmp_path, "", SCRIPT_TESTS)
    (root / "app" / "cli_helper.py").write_text("X = 42\n", encoding="utf-8")
    result = factor(root, "tests/test_logic.py::test_script", "subprocess")
    assert result.status == "refused"
    assert "none of the project's own code" in result.reason, result.reason


STORE = """
import subprocess


def make_store(folder):
    script = "mkdir -p state/refs && printf v1 > state/VERSION && rm old && sleep 0.15"
    subprocess.run(["sh", "-c", script], cwd=folder, check=True)


def version(folder):
    return (folder / "state" / "VERSION").read_text()
"""

STORE_TEST = """
from app import logic


def test_store(tmp_path):
    (tmp_path / "old").write_text("gone soon")
    logic.make_store(tmp_path)
    (tmp_path / "state" / "refs" / "bad").touch()
    assert not (tmp_path / "old").exists()
    assert logic.version(tmp_path) == "v1"
"""


def test_what_a_child_did_to_tmp_path_is_redone_on_replay(tmp_path: Path) -> None:
    """dunamai's ``broken_ref``: git made ``.git/refs/tags`` and the test touches a file in
    it. The replay answers the child's call without running it; the folders and files it
    made, changed or removed below ``tmp_path`` are redone, or the test fails on replay."""
    from tests.factoring.helpers import edit, outcomes

    root = make_project(tmp_path, STORE, STORE_TEST)
    result = factor(root, "tests/test_logic.py::test_store", "subprocess")
    assert result.status == "factored", result.reason
    transcript = (root / (result.transcript or "")).read_text(encoding="utf-8")
    assert '"<tmp_path>/state/VERSION"' in transcript and '"<tmp_path>/old"' in transcript
    edit(root, "app/logic.py", '"state" / "VERSION"', '"state" / "refs" / "bad"')
    after = outcomes(root, result.factored_test or "")
    assert after[result.factored_test or ""]["outcome"] == "failed"


def test_a_socket_a_child_left_in_tmp_path_is_not_a_file_to_redo(tmp_path: Path) -> None:
    import socket

    from lsp_server.factoring.fs_effects import changes, listing

    before = listing(str(tmp_path))
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "S.agent"))  # as gpg's agent in setuptools-scm's tests
        (tmp_path / "made").write_text("x")
        effects = changes(before, listing(str(tmp_path)), str)
    finally:
        server.close()
    assert [e[:2] for e in effects] == [["file", str(tmp_path / "made")]]
