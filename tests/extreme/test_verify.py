"""``--verify N``: undetected verdicts checked again the plain way, disagreement reported."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.model import Verdict

from .conftest import INC_MODULE, REKS


def test_verified_undetected_verdicts_agree_with_the_plain_way(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "m.py": INC_MODULE,
            "test_m.py": """
                from m import inc

                def test_inc_runs():
                    inc(1)  # no assertion: every transformation goes undetected
            """,
        }
    )
    analysis = analyse(root, Options(jobs=1, verify=1))
    assert [r.verdict for r in analysis.results] == [Verdict.UNDETECTED] * 2
    assert analysis.checked_on_disk == 1
    assert analysis.defects == []


def test_a_disagreement_is_reported_as_a_defect_of_the_analysis(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # A test that reads the function's source sees a change on disk, not one in memory.
    root = make_project(
        {
            "m.py": INC_MODULE,
            "test_m.py": """
                import inspect
                from m import inc

                def test_source_is_documented():
                    inc(1)
                    assert "y = x + 1" in inspect.getsource(inc)
            """,
        }
    )
    done = subprocess.run(
        [*REKS, "extreme", "--json", "--jobs", "1", "--verify", "5"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    defects = [line for line in done.stderr.splitlines() if "defect of the analysis" in line]
    assert len(defects) == 2, done.stderr
    assert "m.py::inc -> return 0: undetected in place but detected on disk" in defects[0]
    assert '"verdict": "undetected"' not in done.stdout
