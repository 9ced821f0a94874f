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


def test_a_replay_not_clearly_faster_in_its_best_rounds_is_refused() -> None:
    """Timed side by side, a replay slower in two of five rounds, or whose best round is
    faster by less than 1.5x and 50 ms, is not kept."""
    from lsp_server.factoring.keep import Timings, rejection

    passed = {"outcome": "passed"}
    cpu = [0.001] * 5
    two_slower = Timings([0.40, 0.41, 0.39, 0.40, 0.40], [0.10, 0.42, 0.10, 0.45, 0.1], cpu, cpu)
    assert "not faster" in rejection(two_slower, passed)
    assert "in 2 round(s)" in rejection(two_slower, passed)
    one_of_two = Timings([0.40, 0.41], [0.10, 0.42], cpu[:2], cpu[:2])
    assert "in 1 round(s)" in rejection(one_of_two, passed)
    noisy = Timings([0.30, 0.50, 0.70, 0.40, 0.45], [0.28, 0.44, 0.60, 0.35, 0.40], cpu, cpu)
    assert "not clearly faster" in rejection(noisy, passed)
    close = Timings([0.0301, 0.0300, 0.0302, 0.0301, 0.0301], [0.0240] * 5, cpu, cpu)
    assert "under 1.5x" in rejection(close, passed)
    clear = Timings([0.0121, 0.0120, 0.0122, 0.0121, 0.0121], [0.0040] * 5, cpu, cpu)
    assert rejection(clear, passed) == ""
    waiting_saved = Timings([0.30, 0.31, 0.30, 0.32, 0.30], [0.24] * 5, cpu, cpu)
    assert rejection(waiting_saved, passed) == ""  # 60 ms saved
    more_cpu = Timings([0.30, 0.31, 0.30, 0.32, 0.30], [0.24] * 5, cpu, [0.2] * 5)
    assert "more CPU" in rejection(more_cpu, passed)
    assert "does not pass" in rejection(clear, {"outcome": "failed"})
    tiny = Timings([0.0014, 0.0015, 0.0016, 0.0014, 0.0015], [0.0004] * 5, cpu, cpu)
    assert "saves too little" in rejection(tiny, passed)  # 3.5x of 1.4 ms: pytest's noise


def test_a_clearly_faster_replay_is_kept_through_bursts_of_load() -> None:
    """On a loaded machine (load 10-18 on 2 cores) a burst of load lands on some rounds:
    both tests of a round take longer, or one run of the replay does. Its best rounds are
    still several times faster, and it is kept (diskcache's test_least_frequently_used,
    196 ms against 67 ms, was refused as 'a saving within the noise')."""
    from lsp_server.factoring.keep import Timings, rejection

    passed = {"outcome": "passed"}
    cpu = [0.01] * 5
    loaded_rounds = Timings(
        [0.20, 0.50, 0.19, 0.65, 0.55], [0.06, 0.30, 0.05, 0.35, 0.32], cpu, cpu
    )
    assert rejection(loaded_rounds, passed) == ""
    one_burst = Timings([0.20, 0.21, 0.19, 0.20, 0.22], [0.05, 0.05, 0.24, 0.05, 0.06], cpu, cpu)
    assert rejection(one_burst, passed) == ""


COLD_THEN_WARM = """
import os
import time

from app import env

MARKER = os.path.join(os.path.dirname(__file__), ".warm")


def lookup(keys):
    # A cache that is cold on the first run only (the OS page cache, a database opened
    # for the first time): the one timing of the system test that a single run measures.
    if not os.path.exists(MARKER):
        time.sleep(0.25)
        open(MARKER, "w").close()
    return [env.compute(k)["double"] for k in keys]
"""

LOOKUP_TEST = """
from app import logic


def test_it():
    assert logic.lookup([1, 2, 3]) == [2, 4, 6]
"""

CHEAP_COMPUTE = "\n\ndef compute(x):\n    return {'double': x * 2}\n"


def test_a_factored_test_that_is_not_faster_side_by_side_is_not_kept(tmp_path: Path) -> None:
    """E is three cheap calls: the replay cannot win. The system test measured once (its
    first run, with a cold cache in T) looks 50x slower than its replay; timed side by side
    in repeated, interleaved rounds it is not, and the factored test is not kept."""
    root = make_project(tmp_path, COLD_THEN_WARM, LOOKUP_TEST, env=ENV + CHEAP_COMPUTE)
    result = factor_test(root, TEST, ["app.env"])
    assert result.status == "refused", (result.system_s, result.replay_s, result.details)
    assert "side by side" in result.reason, result.reason
    assert not list((root / "tests").glob("test_factored__*"))
    assert not list((root / "tests").glob("*.transcript.json"))
