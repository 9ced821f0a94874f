"""Tests that write a file of the project share it between the workers: two
transformations run at once, and one run can read the file while the other has it
truncated, so a test fails that passes on its own. Such a failure is no evidence that the
suite checks the transformed function: the run is made again alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.model import Verdict

from .conftest import INC_MODULE

# Reads a data file of the project, checks it, and writes it back, again and again; while
# it writes, the file is empty (``open(..., "w")`` truncates it first). A load that slows
# the writer widens that window; the sleep makes it wide on a quiet machine. The test
# calls ``inc`` without checking it: every transformation of ``inc`` is undetected.
REWRITES_DATA = """
import time
from pathlib import Path

from m import inc

DATA = Path(__file__).with_name("data.txt")

def test_data_survives_a_rewrite():
    for _ in range(25):
        text = DATA.read_text()
        assert text == "hello\\n"
        with DATA.open("w") as f:
            time.sleep(0.02)
            f.write(text)
    inc(1)
"""


def test_a_failure_caused_by_a_concurrent_run_writing_a_project_file_is_no_detection(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"m.py": INC_MODULE, "test_m.py": REWRITES_DATA, "data.txt": "hello\n"})
    analysis = analyse(root, Options(jobs=2, incremental=False))
    assert len(analysis.results) == 2
    for result in analysis.results:
        assert result.verdict is Verdict.UNDETECTED, result
    assert (root / "data.txt").read_text() == "hello\n"


def test_a_detection_run_again_alone_stands(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # The same test checking ``inc`` too: run again alone, each run still fails.
    checks_inc = REWRITES_DATA.replace("    inc(1)\n", "    assert inc(1) == 2\n")
    root = make_project({"m.py": INC_MODULE, "test_m.py": checks_inc, "data.txt": "hello\n"})
    analysis = analyse(root, Options(jobs=2, incremental=False))
    assert len(analysis.results) == 2
    for result in analysis.results:
        assert result.verdict is Verdict.DETECTED, result
        assert "assert inc(1) == 2" in result.reason or "AssertionError" in result.reason
    assert (root / "data.txt").read_text() == "hello\n"


# Reads the data file again and again while the other test file rewrites it; checks
# ``inc``. Observed on its own it passes: every transformation of ``inc`` is detected.
READS_DATA = """
import time
from pathlib import Path

from m import inc

DATA = Path(__file__).with_name("data.txt")

def test_data_reads_whole_and_inc_counts():
    for _ in range(60):
        assert DATA.read_text() == "hello\\n"
        time.sleep(0.01)
    assert inc(1) == 2
"""


def test_an_observation_failure_caused_by_another_shard_writing_a_project_file_is_observed_again(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # The two test files go to two observation shards, run at the same time: the reader
    # sees the file emptied by the writer and fails; a test that failed on the original
    # code covers nothing, and ``inc`` would be reported pseudo-tested.
    root = make_project(
        {
            "m.py": INC_MODULE,
            "test_a_writes.py": REWRITES_DATA,
            "test_b_reads.py": READS_DATA,
            "data.txt": "hello\n",
        }
    )
    analysis = analyse(root, Options(jobs=2, incremental=False))
    assert len(analysis.results) == 2
    for result in analysis.results:
        assert result.verdict is Verdict.DETECTED, result
    assert (root / "data.txt").read_text() == "hello\n"
