"""What every transformation's child would compute alike is computed once, in the worker
before it forks: the paths of the modules it loaded (the run log's recorder resolves each
file a child's code comes from) and each test's location (pytest's report of every test)."""

from __future__ import annotations

import json.encoder
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme import execution_recorder
from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.run_log import RunLog

from .conftest import verdict_rows


def test_a_prewarmed_run_log_resolves_no_path_of_a_loaded_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert json.encoder.__file__  # loaded before the prewarm, as a worker's modules are
    log = RunLog(str(tmp_path))
    log.prewarm()
    resolved: list[str] = []
    realpath = os.path.realpath

    def counting(path: str) -> str:
        resolved.append(path)
        return realpath(path)

    monkeypatch.setattr(execution_recorder.os.path, "realpath", counting)
    log.start()  # as in a child: its first call of each code object maps it to a unit
    try:
        json.encoder.JSONEncoder().encode({"a": [1, 2.5, None]})
    finally:
        log.recorder.stop()
        monkeypatch.undo()
    assert resolved == []


ITEM_CONFTEST = """
import os

import pytest

from m import double

LOG = os.path.join(os.path.dirname(__file__), "reportinfo.log")


class CheckItem(pytest.Item):
    def runtest(self):
        assert double(2) == 4

    def reportinfo(self):
        with open(LOG, "a") as log:
            log.write("%d\\n" % os.getpid())
        return self.path, 0, self.name


class CheckFile(pytest.File):
    def collect(self):
        yield CheckItem.from_parent(self, name="check_double")


def pytest_collect_file(file_path, parent):
    if file_path.name == "checks.txt":
        return CheckFile.from_parent(parent, path=file_path)
"""


def test_the_children_inherit_each_tests_location_from_the_worker(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "conftest.py": ITEM_CONFTEST,
            "checks.txt": "double\n",
            "m.py": "def double(x):\n    y = x * 2\n    return y\n",
        }
    )
    # pytest-lsp's plugin (in the dev environment) wraps the call of every item as if it
    # were a function's: a plain ``pytest.Item`` fails under it.
    options = Options(jobs=1, incremental=False, pytest_args=["-p", "no:pytest-lsp"])
    analysis = analyse(root, options)
    rows = verdict_rows(analysis)
    assert rows and all(verdict == "detected" for _, _, verdict in rows)
    # Every transformation's child reports its test; none computed where it is.
    pids = set((root / "reportinfo.log").read_text().split())
    assert len(pids) == 1
