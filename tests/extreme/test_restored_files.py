"""A run stopped before its test's teardown (a hang stopped at its deadline, a busy loop
stopped at its CPU budget, a crash) never restores the project file that test rewrites: the
analysis keeps the file's bytes from before the first write and puts them back, so the
user's project is byte-identical after ``reks extreme``, and a later run does not read the
damaged file (which would fail a test for a reason that is not the transformation)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme import report
from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.model import Transformation, Verdict
from lsp_server.extreme.on_disk import PrivateCopy
from lsp_server.extreme.project_originals import FOLDER

from .conftest import LOOP_MODULE, REKS

# The test empties the data file, writes part of it, then calls ``advance``: under
# ``ready -> return False`` the loop never ends and the run is stopped inside the ``with``,
# the file holding only "partial". Untransformed, the test puts the text back.
REWRITES_AROUND_A_CALL = """
from pathlib import Path

from loop import advance

DATA = Path(__file__).with_name("data.txt")

def test_rewrites_the_data_around_a_call():
    text = DATA.read_bytes()
    with DATA.open("wb") as f:
        f.write(b"partial")
        f.flush()
        assert advance({"n": 0}) == 3
    DATA.write_bytes(text)
"""
DATA = b"line one\r\nline two \xe2\x9c\x93\n"  # bytes a text round trip would not keep


def test_a_file_a_stopped_run_left_rewritten_is_restored(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"loop.py": LOOP_MODULE, "test_loop.py": REWRITES_AROUND_A_CALL})
    (root / "data.txt").write_bytes(DATA)
    analysis = analyse(root, Options(jobs=2, incremental=False, paths=[root / "loop.py"]))
    stopped = [r for r in analysis.results if r.transformation.body == "return False"]
    assert stopped and stopped[0].verdict.value in {"timeout", "detected"}, analysis.results
    assert (root / "data.txt").read_bytes() == DATA
    assert analysis.restored == ["data.txt"]
    text = report.markdown(analysis, report.rows(analysis))
    assert "## Restored files" in text and "`data.txt`" in text


def test_the_cli_leaves_the_project_byte_identical_and_says_it_restored(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"loop.py": LOOP_MODULE, "test_loop.py": REWRITES_AROUND_A_CALL})
    (root / "data.txt").write_bytes(DATA)
    done = subprocess.run(
        [*REKS, "extreme", str(root / "loop.py"), "--jobs", "2"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (root / "data.txt").read_bytes() == DATA
    assert "restored" in done.stdout + done.stderr and "data.txt" in done.stdout + done.stderr


CHECKS_DATA = f"""
from pathlib import Path

from loop import ready

def test_the_data_is_whole():
    ready({{"n": 3}})
    assert Path(__file__).with_name("data.txt").read_bytes() == {DATA!r}
"""


# The loop of ``LOOP_MODULE``, sleeping: a plain run is stopped at its wall-clock limit,
# and a busy loop would burn that whole limit of CPU on a loaded CI machine.
SLEEPING_LOOP = "import time\n" + LOOP_MODULE.replace(
    '        state["n"] += 1\n', '        state["n"] += 1\n        time.sleep(0.05)\n'
)


def test_a_plain_run_stopped_in_a_private_copy_leaves_both_trees_whole(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # ``--verify`` runs one check after another in the same private copy: a run stopped at
    # its limit must not leave the copy's data file damaged for the next check (which would
    # then fail for a reason that is not its transformation), nor touch the user's tree.
    assert "time.sleep" in SLEEPING_LOOP
    root = make_project(
        {
            "loop.py": SLEEPING_LOOP,
            "test_loop.py": REWRITES_AROUND_A_CALL,
            "test_data.py": CHECKS_DATA,
        }
    )
    (root / "data.txt").write_bytes(DATA)
    line = SLEEPING_LOOP.splitlines().index("def ready(state):") + 1
    with PrivateCopy(root) as copy:
        hangs = Transformation("loop.py", "ready", line, "return False")
        stopped = copy.run(hangs, ["test_loop.py::test_rewrites_the_data_around_a_call"], 20.0)
        assert stopped.verdict is Verdict.TIMEOUT, stopped
        assert (root / "data.txt").read_bytes() == DATA
        harmless = Transformation("loop.py", "ready", line, "return True")
        after = copy.run(harmless, ["test_data.py::test_the_data_is_whole"], 60.0)
        assert after.verdict is Verdict.UNDETECTED, after
        assert (copy.copy / "data.txt").read_bytes() == DATA
    assert (root / "data.txt").read_bytes() == DATA


def test_copies_a_killed_analysis_left_are_kept_aside_never_applied(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # An analysis killed itself (no ``finish``) leaves the bytes it kept; the user edits
    # the file since. The next analysis must not put the old bytes over the edit.
    root = make_project({"loop.py": LOOP_MODULE, "test_loop.py": REWRITES_AROUND_A_CALL})
    (root / "data.txt").write_bytes(DATA)
    killed = (
        "import sys; from lsp_server.extreme.project_originals import Originals; "
        "kept = Originals(sys.argv[1]); kept.begin(); kept.keep(sys.argv[2])"
    )  # and the process ends without ``finish``, its lock with it
    subprocess.run([sys.executable, "-c", killed, str(root), str(root / "data.txt")], check=True)
    assert (root / ".reks" / FOLDER).is_dir()
    edited = DATA + b"edited by the user\n"
    (root / "data.txt").write_bytes(edited)
    analysis = analyse(root, Options(jobs=2, incremental=False, paths=[root / "loop.py"]))
    assert (root / "data.txt").read_bytes() == edited
    note = analysis.errors["(originals)"]
    aside = Path(note.rsplit(" ", 1)[-1])
    assert aside.is_dir() and aside.parent == root / ".reks", note
