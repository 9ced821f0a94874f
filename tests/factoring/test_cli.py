"""``reks factor`` end to end: --suggest ranks boundaries by expected saving (replaying 2000
cheap calls costs more than one sleep), and without --boundary the best one is factored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.cli import main
from tests.factoring.helpers import make_project

ENV = """
import time


def slow(x):
    time.sleep(0.3)
    return x * 2


def cheap(x):
    return x + 1
"""

LOGIC = """
from app import env


def work():
    return env.slow(2) + sum(env.cheap(i) for i in range(2000))
"""

TESTS = """
from app import logic


def test_it():
    assert logic.work() == 4 + sum(range(1, 2001))
"""

TEST = "tests/test_logic.py::test_it"


def test_suggest_ranks_by_saving_and_factor_picks_the_best(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, LOGIC, TESTS, env=ENV)
    assert main(["factor", TEST, "--suggest", "--json", "--root", str(root)]) == 0
    ranked = json.loads(capsys.readouterr().out)
    by_name = {row["boundary"]: row for row in ranked}
    assert ranked[0]["boundary"] == "time" and ranked[0]["calls"] == 1
    assert by_name["app.env"]["calls"] == 2001 and by_name["app.env"]["time_s"] >= 0.3
    assert by_name["app.env"]["saving_s"] < ranked[0]["saving_s"]

    assert main(["factor", TEST, "--json", "--root", str(root)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "factored" and result["boundaries"] == ["time"]
    assert (root / result["transcript"]).is_file()
    assert result["speedup"] > 1
