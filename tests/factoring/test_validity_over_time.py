"""A factored test must not fail just because time passed since its capture: E answers from
the capture's moment, T reads the clock of the replay's (dunamai's tests check that git's
commit date lies within a minute of ``datetime.utcnow()``)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lsp_server.factoring import factor_tests
from lsp_server.factoring.runner import run_pytest
from lsp_server.factoring.wall_clock import SHIFT_S
from lsp_server.project import Project
from tests.factoring.helpers import ENV, make_project, outcomes

COMMIT_ENV = (
    ENV
    + '''

def commit_date():
    """git's date of the last commit: the capture's moment."""
    import datetime

    time.sleep(0.15)
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S +0000")
'''
)

COMMIT_LOGIC = """
import datetime as dt

from app import env


def committed():
    return dt.datetime.strptime(env.commit_date(), "%Y-%m-%d %H:%M:%S %z")
"""

COMMIT_TESTS = """
import datetime as dt
from datetime import datetime, timezone

from app import logic


def test_recent():
    now = dt.datetime.utcnow().replace(tzinfo=dt.timezone.utc)
    assert abs(now - logic.committed()) < dt.timedelta(minutes=1)


def test_recent_by_name():
    assert abs(datetime.now(timezone.utc) - logic.committed()).total_seconds() < 60


def test_own_readings():
    # T compares its own clock readings only: time passing changes nothing
    before = dt.datetime.now(dt.timezone.utc)
    committed = logic.committed()
    assert dt.datetime.now(dt.timezone.utc) >= before and committed.year > 2000
"""

RECENT = "tests/test_logic.py::test_recent"
BY_NAME = "tests/test_logic.py::test_recent_by_name"
OWN = "tests/test_logic.py::test_own_readings"


def _later(root: Path, *nodeids: str) -> dict[str, dict]:
    """Run tests with the wall clock moved ``SHIFT_S`` forward, as if run long after."""
    tests: dict[str, dict] = run_pytest(
        Project.at(root), list(nodeids), {"clock_shift_s": SHIFT_S}
    )["tests"]
    return tests


@pytest.mark.slow  # a capture and three checks
def test_a_test_comparing_the_clock_with_a_recorded_answer_is_refused_with_the_reason(
    tmp_path: Path,
) -> None:
    root = make_project(tmp_path, COMMIT_LOGIC, COMMIT_TESTS, env=COMMIT_ENV)
    recent, by_name, own = factor_tests(root, [RECENT, BY_NAME, OWN], ["app.env"])
    for refused in (recent, by_name):
        assert refused.status == "refused"
        assert "wall clock" in refused.reason and "days later" in refused.reason, refused.reason
        assert "--clock-in-e" in refused.reason
        assert not list(root.glob("tests/test_factored__*recent*"))
    assert own.status == "factored", own.reason
    assert _later(root, own.factored_test or "")[own.factored_test or ""]["outcome"] == "passed"


@pytest.mark.slow  # a capture and four checks
def test_with_clock_in_e_the_replay_reads_the_capture_moment_and_passes_later(
    tmp_path: Path,
) -> None:
    root = make_project(tmp_path, COMMIT_LOGIC, COMMIT_TESTS, env=COMMIT_ENV)
    recent, by_name = factor_tests(root, [RECENT, BY_NAME], ["app.env"], clock_in_e=True)
    for result in (recent, by_name):
        assert result.status == "factored", result.reason
        assert any("--clock-in-e" in warning for warning in result.warnings)
        data = json.loads((root / (result.transcript or "")).read_text(encoding="utf-8"))
        assert data["t_clock"] == "capture" and data["version"] == 5
    factored = [recent.factored_test or "", by_name.factored_test or ""]
    assert all(e["outcome"] == "passed" for e in _later(root, *factored).values())
    assert all(e["outcome"] == "passed" for e in outcomes(root, *factored).values())


CHILD_LOGIC = """
import subprocess
import sys

from app import env


def child_time():
    env.compute(1)
    # a real child process, not E: it reads the real clock in the replay too
    done = subprocess.run(
        [sys.executable, "-c", "import time; print(time.time())"],
        capture_output=True, text=True, check=True,
    )
    return float(done.stdout)
"""

CHILD_TESTS = """
import datetime as dt

from app import logic


def test_child():
    assert abs(dt.datetime.now().timestamp() - logic.child_time()) < 60
"""


@pytest.mark.slow  # a capture and two checks
def test_a_replay_that_starts_a_child_process_is_not_judged_by_the_moved_clock(
    tmp_path: Path,
) -> None:
    """The child's clock is the real one: moved, T's clock disagrees with it in the system
    test as well, so a failure says nothing about the transcript (dunamai's tests with only
    ``time.sleep`` in E run git for real and were refused)."""
    root = make_project(tmp_path, CHILD_LOGIC, CHILD_TESTS)
    (result,) = factor_tests(
        root, ["tests/test_logic.py::test_child"], ["app.env"], keep_slower=True
    )
    assert result.status == "factored", result.reason
    assert any("child processes" in warning for warning in result.warnings), result.warnings


def test_the_moved_clock_keeps_the_datetime_classes_working(tmp_path: Path) -> None:
    """In a process of its own: the stand-ins replace the real readers process-wide."""
    script = textwrap.dedent(
        """
        import datetime, time
        from datetime import datetime as bound_early
        real_now = time.time()
        from lsp_server.factoring import wall_clock
        wall_clock.shift(86400.0)
        assert abs(time.time() - real_now - 86400.0) < 60
        assert abs(time.time_ns() / 1e9 - real_now - 86400.0) < 60
        assert bound_early is datetime.datetime  # rebound in this module too
        made = datetime.datetime(2020, 1, 2, 3, 4, 5)
        assert type(made) is wall_clock._REAL_DATETIME
        assert repr(made) == "datetime.datetime(2020, 1, 2, 3, 4, 5)"
        assert isinstance(made, datetime.datetime) and isinstance(made, datetime.date)
        assert isinstance(datetime.datetime.strptime("2020", "%Y"), datetime.datetime)
        assert repr(datetime.datetime.fromisoformat("2020-01-02")).startswith("datetime.datetime(")
        ahead = datetime.datetime.now().timestamp() - real_now
        assert 86400.0 - 60 < ahead < 86400.0 + 60, ahead
        assert datetime.date.today() == datetime.date.fromtimestamp(real_now + 86400.0)
        assert time.gmtime().tm_yday == time.gmtime(real_now + 86400.0).tm_yday

        class Own(datetime.datetime):
            pass

        assert type(Own(2020, 1, 1)) is Own and not isinstance(made, Own)
        wall_clock.pin(1000000000.0)
        assert abs(time.time() - 1000000000.0) < 60
        assert datetime.datetime.utcnow().year == 2001
        wall_clock.unpin()
        assert abs(time.time() - real_now - 86400.0) < 60
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_every_reader_the_clock_watch_knows_is_moved(tmp_path: Path) -> None:
    """``clock_readers`` is the one list both checks use: each reader in it reads the moved
    clock, whatever its kind (seconds, nanoseconds, a struct, a string, a date)."""
    script = textwrap.dedent(
        """
        import calendar, datetime, time
        from lsp_server.factoring import clock_readers, wall_clock
        real_now = time.time()
        wall_clock.shift(400 * 86400.0)

        def seconds(value):
            if isinstance(value, int):
                return value / 1e9
            if isinstance(value, float):
                return value
            if isinstance(value, time.struct_time):
                return calendar.timegm(value)
            if isinstance(value, datetime.datetime):
                return calendar.timegm(value.timetuple())
            if isinstance(value, datetime.date):
                return calendar.timegm(value.timetuple())
            return calendar.timegm(time.strptime(value))

        readings = {}
        for module, name in clock_readers.ALWAYS_NOW + clock_readers.NOW_BY_DEFAULT:
            reader = getattr(module, name)
            readings[name] = reader("%c") if name == "strftime" else reader()
        for cls, names in clock_readers.NOW_CONSTRUCTORS.items():
            stand_in = getattr(datetime, cls.__name__)
            for name in names:
                readings[cls.__name__ + "." + name] = getattr(stand_in, name)()
        for name, value in readings.items():
            days = (seconds(value) - real_now) / 86400.0
            assert 398.5 < days < 401.5, (name, value, days)
        print(len(readings))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.stdout.strip() == "11", done.stderr
