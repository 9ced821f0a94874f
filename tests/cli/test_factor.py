"""``reks factor`` end to end: --suggest ranks boundaries by expected saving and refuses one
whose 3000 cheap calls would cost more to replay than to make; without --boundary the best
one is factored. ``app.env`` spends its time in ``time.sleep``: ``time`` is the boundary
suggested first (``app.env`` is left under test)."""

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
import math

from app import env


def work():
    roots = [math.sqrt(i) for i in range(3000)]
    return env.slow(2) + env.cheap(len(roots) - 3000)
"""

TESTS = """
from app import logic


def test_it():
    assert logic.work() == 5
"""

TEST = "tests/test_logic.py::test_it"


def test_suggest_ranks_by_saving_and_factor_picks_the_best(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, LOGIC, TESTS, env=ENV)
    assert main(["factor", TEST, "--suggest", "--json", "--root", str(root)]) == 0
    ranked = json.loads(capsys.readouterr().out)
    by_name = {row["boundary"]: row for row in ranked}
    assert ranked[0]["boundary"] == "time" and not ranked[0]["refused"]
    assert ranked[0]["calls"] == 1 and ranked[0]["time_s"] >= 0.3
    assert by_name["math"]["calls"] == 3000
    assert "replay would not be faster" in by_name["math"]["refused"]

    assert main(["factor", TEST, "--json", "--root", str(root)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "factored" and result["boundaries"] == ["time"]
    assert (root / result["transcript"]).is_file()
    assert result["speedup"] > 1


def test_a_transcript_over_the_size_limit_is_refused_with_both_sizes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, LOGIC, TESTS, env=ENV)
    command = ["factor", TEST, "--boundary", "app.env", "--max-transcript-mb", "0.0002"]
    assert main([*command, "--root", str(root)]) == 1
    out = capsys.readouterr().out
    assert "not factored: boundary refused: the transcript would be" in out
    assert "over the limit of 0.2 kB" in out and "--max-transcript-mb" in out
