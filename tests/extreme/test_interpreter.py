"""Every process the extreme analysis and the Reneri diagnosis start runs in the interpreter
they are given (the project's), never silently in the one running reks."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.model import Verdict
from lsp_server.extreme.reneri import diagnose


def _recording_interpreter(tmp_path: Path) -> tuple[Path, Path]:
    """A stand-in for a project's interpreter: logs its arguments, then runs Python."""
    log = tmp_path / "started.txt"
    wrapper = tmp_path / "bin" / "python"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, log


def test_workers_and_observation_runs_use_the_given_interpreter(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    root = make_project(
        {
            # This warning is an error: our package on another interpreter's path must not
            # make pytest warn that it cannot rewrite it.
            "pytest.ini": """
                [pytest]
                filterwarnings = error::pytest.PytestAssertRewriteWarning
            """,
            "counter.py": """
                def bump(state):
                    state["n"] = state.get("n", 0) + 1
                    return None
            """,
            "test_counter.py": """
                from counter import bump

                def test_bump_runs():
                    bump({})
            """,
        }
    )
    python, log = _recording_interpreter(tmp_path)
    analysis = analyse(root, Options(jobs=1, python=str(python), incremental=False))
    undetected = [r for r in analysis.results if r.verdict is Verdict.UNDETECTED]
    assert undetected, [(r.transformation.body, r.verdict, r.reason) for r in analysis.results]
    diagnoses = diagnose(root, undetected[:1], runs=1, python=str(python))
    assert diagnoses[0].symptom != "unknown", diagnoses[0].error
    started = log.read_text().splitlines()
    assert any("lsp_server.extreme.pytest_worker" in line for line in started), started
    assert any("lsp_server.extreme.reneri.plugin" in line for line in started), started
