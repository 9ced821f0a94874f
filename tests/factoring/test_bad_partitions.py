"""Bad partitions are refused with the reason: a transcript over the size limit."""

from __future__ import annotations

import re
from pathlib import Path

from lsp_server.factoring import factor_test
from lsp_server.factoring.suggest import rank
from tests.factoring.helpers import ENV, make_project

TEST = "tests/test_logic.py::test_it"

CHATTY = """
from app import env


def count():
    store = env.open_store("s")
    for row in range(200):
        store.put_fast("row %d" % row)
    return store.get_count()
"""

CHATTY_TEST = """
from app import logic


def test_it():
    assert logic.count() == 200
"""

FAST_PUT = (
    "\n\ndef _put_fast(self, row):\n    self.rows.append(row)\n\n\nStore.put_fast = _put_fast\n"
)


def test_a_transcript_over_the_limit_refuses_the_boundary(tmp_path: Path) -> None:
    root = make_project(tmp_path, CHATTY, CHATTY_TEST, env=ENV + FAST_PUT)
    result = factor_test(root, TEST, ["app.env"], max_transcript_bytes=4096)
    assert result.status == "refused"
    assert "transcript" in result.reason and "over the limit of 4.0 kB" in result.reason, (
        result.reason
    )
    # The size depends on the project's paths, which the transcript names.
    size = re.search(r"the transcript would be ([0-9.]+) kB", result.reason)
    assert size is not None and float(size.group(1)) > 4.0, result.reason
    assert "202 recorded interactions" in result.reason
    assert not list((root / "tests").glob("test_factored__*"))
    assert not list((root / "tests").glob("*.transcript.json"))


def test_a_suggestion_whose_transcript_would_be_over_the_limit_is_refused() -> None:
    profile = [{"boundary": "sqlite3", "time_s": 2.0, "calls": 50_000, "kind": "external"}]
    (within,) = rank(profile, max_transcript_bytes=100 * 1024 * 1024)
    assert not within.refused
    (over,) = rank(profile, max_transcript_bytes=1024 * 1024)
    assert over.refused.startswith("its transcript would be about 7.6 MB (50000 calls)")
    assert "over the limit of 1.0 MB" in over.refused


def test_a_replay_barely_faster_in_one_run_is_refused_as_it_can_be_slower_in_the_next() -> None:
    """The system test and its replay are timed in different pytest runs: a 10% gain there
    is noise, and the same pair timed side by side later can have the replay slower."""
    from lsp_server.factoring.factor import FactorResult, _rejection

    close = FactorResult("t", ["pathlib"], system_s=0.0121, replay_s=0.0105, calls=6)
    assert "not clearly faster" in _rejection(close, {"outcome": "passed"}, keep_slower=False)
    clear = FactorResult("t", ["pathlib"], system_s=0.0121, replay_s=0.0040, calls=6)
    assert _rejection(clear, {"outcome": "passed"}, keep_slower=False) == ""
