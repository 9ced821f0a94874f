"""A coverage plugin of the project's ``addopts`` does not start in reks's pytest sessions.

pytest-cov decides to start from the options pytest parsed early, before the worker's
``project_options`` drops ``--cov``: without care every extreme worker (and every on-disk
check) ran its tests under coverage's tracer, beside reks's own, and saved a ``.coverage``
of a session that ran no test of its own. A coverage plugin cannot make a test detect a
transformation, so the verdicts are those of a run without it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.model import Verdict

from .conftest import INC_MODULE, plain_run

pytest.importorskip("pytest_cov")

NOTES_COVERAGE = """
import os

def pytest_configure(config):
    # Whether pytest-cov started in this session, noted outside the project.
    started = config.pluginmanager.has_plugin("_cov")
    with open({log!r}, "a", encoding="utf-8") as log:
        log.write(f"{{os.getpid()}} {{started}}\\n")
"""

UNCHECKED_TEST = """
from inc import inc

def test_inc_runs():
    inc(1)  # no assertion: every transformation goes undetected, so --verify checks one
"""


def _sessions(log: Path) -> list[bool]:
    """Per pytest session that ran over the project: whether pytest-cov started in it."""
    if not log.exists():
        return []
    return [line.split()[1] == "True" for line in log.read_text().splitlines()]


def test_workers_and_on_disk_checks_run_without_the_coverage_plugin_of_the_addopts(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    log = tmp_path / "sessions.log"
    root = make_project(
        {
            "inc.py": INC_MODULE,
            "test_inc.py": UNCHECKED_TEST,
            "conftest.py": NOTES_COVERAGE.format(log=str(log)),
            "pytest.ini": "[pytest]\naddopts = --cov=inc --cov-branch --cov-report=\n",
        }
    )
    plain_run(root)
    assert _sessions(log) == [True]  # the user's run measures coverage
    (root / ".coverage").unlink()
    analysis = analyse(root, Options(jobs=1, incremental=False, verify=1))
    assert [r.verdict for r in analysis.results] == [Verdict.UNDETECTED] * 2
    assert analysis.checked_on_disk == 1 and analysis.defects == []
    sessions = _sessions(log)[1:]
    assert len(sessions) >= 2, sessions  # a worker and an on-disk check at least
    assert not any(sessions), sessions
    assert not (root / ".coverage").exists()  # no worker saved coverage data


NOTES_EARLY_OPTIONS = """
import os

def pytest_configure(config):
    early, mode = config.known_args_namespace, config.option.importmode
    with open({log!r}, "a", encoding="utf-8") as log:
        log.write(f"{{early.importmode}} {{bool(early.cov_source)}} {{mode}}\\n")
"""


def test_the_options_a_worker_keeps_stay_in_the_early_parse_made_again(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    # Made again without ``--cov``, the early parse still has the options kept: the
    # conftests load in the project's import mode.
    log = tmp_path / "sessions.log"
    root = make_project(
        {
            "inc.py": INC_MODULE,
            "test_inc.py": "from inc import inc\n\ndef test_inc():\n    assert inc(1) == 2\n",
            "conftest.py": NOTES_EARLY_OPTIONS.format(log=str(log)),
            "pytest.ini": "[pytest]\naddopts = --cov=inc --import-mode=importlib --cov-report=\n",
        }
    )
    analysis = analyse(root, Options(jobs=1, incremental=False))
    assert {r.verdict for r in analysis.results} == {Verdict.DETECTED}, analysis.results
    assert set(log.read_text().splitlines()) == {"importlib False importlib"}
