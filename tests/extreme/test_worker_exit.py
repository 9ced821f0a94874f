"""A worker that quits skips the interpreter's teardown of its large heap (the analysis
waits for it), but still runs the exit handlers the project registered: what they clean
up is not left behind."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse

DOUBLE = {
    "m.py": "def double(x):\n    y = x * 2\n    return y\n",
    "test_m.py": "from m import double\n\ndef test_double():\n    assert double(2) == 4\n",
}
"""A module and its test; each test adds a conftest with an exit handler."""


def test_a_quitting_worker_runs_the_projects_exit_handlers(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    log = tmp_path / "exit.log"
    root = make_project(
        {
            "conftest.py": f"""
                import atexit
                import os

                def _clean_up(pid=os.getpid()):
                    with open({str(log)!r}, "a") as out:
                        out.write("%d\\n" % pid)

                atexit.register(_clean_up)
            """,
            **DOUBLE,
        }
    )
    analysis = analyse(root, Options(paths=[root / "m.py"], jobs=1, incremental=False))
    assert {r.verdict.value for r in analysis.results} == {"detected"}
    # Once, by the worker that imported the conftest (its children exit at once).
    assert len(log.read_text().split()) == 1


def test_the_analysis_saves_its_state_while_its_workers_quit(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    # The worker's exit handler waits until the analysis saved its verdicts: an analysis
    # that waits for its workers to end before it saves them (its end then costs both, one
    # after the other) kills the worker first.
    seen = tmp_path / "saved_at_exit.txt"
    root = make_project(
        {
            "conftest.py": f"""
                import atexit
                import os
                import time
                from pathlib import Path

                from lsp_server.extreme.state import has_state

                def _wait_for_the_saved_state(root=Path(__file__).parent):
                    give_up = time.monotonic() + 30
                    while not has_state(root) and time.monotonic() < give_up:
                        time.sleep(0.01)
                    Path({str(seen)!r}).write_text(str(has_state(root)))

                atexit.register(_wait_for_the_saved_state)
            """,
            **DOUBLE,
        }
    )
    analyse(root, Options(jobs=1, incremental=False))
    assert seen.read_text() == "True"
