"""Verifying what REKS skipped: a refactoring that broke its skipped tests behind REKS's
back is found later (a budgeted ``pytest --reks``, ``reks verify-skipped``), named in an
alarm, and its shape is never trusted again.

The broken refactoring is a deliberately wrong edit announced to the engine as an
extract variable (``double`` returns ``value * 3`` through the new variable): it compiles,
it defines every name, so the trust-but-verify checks trust it and REKS skips the tests of
``double``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.cli import main
from lsp_server.rts.file_units import Unit
from lsp_server.rts.provenance import Origin, Provenance, TaskTarget
from lsp_server.rts.store import FAILED, PASSED, PENDING, DependencyStore
from lsp_server.rts.verification import budget_picks
from lsp_server.trust.verification import learn_failures
from tests.support.reks import Reks, project, recorded_template, reks, run_pytest

__all__ = ["project", "recorded_template", "reks"]

UTIL = "pkg/util.py"
DOUBLE_TESTS = {
    "tests/test_util.py::test_double",
    "tests/test_util.py::test_quadruple",
    "tests/test_shapes.py::test_scaled_area",
}
WRONG = "extract variable `factor` in `double`"


@pytest.fixture(autouse=True)
def _own_known_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Learnt shapes go to a file of this test, never to the user's."""
    path = tmp_path / "known_failures.json"
    monkeypatch.setenv("REKS_KNOWN_FAILURES", str(path))
    return path


def announce_wrong_extract(reks: Reks) -> Provenance:
    """Write the wrong edit and announce it as an extract variable of ``2`` in double."""
    path = reks.root / UTIL
    before = path.read_text()
    after = before.replace("    return value * 2\n", "    factor = 3\n    return value * factor\n")
    offset = before.index("value * 2") + len("value * ")
    provenance = Provenance(
        "extract-variable",
        WRONG,
        files_before={UTIL: before},
        files_after={UTIL: after},
        target=TaskTarget("extract-variable", UTIL, offset, offset + 1),
    )
    provenance.add(Origin.MODIFIED, Unit(UTIL, "double"), Unit(UTIL, "double"))
    path.write_text(after)
    reks.engine.announce_applied(str(reks.root), provenance)
    return provenance


def states(root: Path) -> dict[str, str]:
    with DependencyStore(root, create=False) as store:
        return {s.nodeid: s.state for s in store.skipped_tests()}


def reks_cli(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    """``reks ARGS --root ROOT`` in this process (the tests it runs are a real pytest
    subprocess): exit code, stdout, stderr."""
    capsys.readouterr()
    code = main([*args, "--root", str(root)])
    out, err = capsys.readouterr()
    return code, out, err


def test_budget_runs_the_skipped_tests_and_raises_the_alarm(reks: Reks) -> None:
    announce_wrong_extract(reks)
    outcome = reks.listener.last
    assert outcome is not None and outcome.fallback is None
    assert set(outcome.skipped_tests) == DOUBLE_TESTS
    assert states(reks.root) == dict.fromkeys(DOUBLE_TESTS, PENDING)
    # Plain `pytest --reks` (no budget) runs none of them and verifies nothing.
    result = run_pytest(reks.root, "--reks")
    assert "reks: 0 selected" in result.stdout, result.stdout
    assert states(reks.root) == dict.fromkeys(DOUBLE_TESTS, PENDING)
    # With a budget, they run after the selected ones (none here), reported apart.
    result = run_pytest(reks.root, "--reks", "--reks-verify-budget", "60", "-rA")
    assert result.returncode == 1, result.stdout
    assert "reks: 0 selected" in result.stdout
    assert "reks: verified 3 tests REKS had skipped (budget 60 s" in result.stdout
    assert "0 passed, 3 failed" in result.stdout
    assert f"reks ALARM: refactoring task 1, {WRONG} (extract-variable" in result.stdout
    assert states(reks.root) == dict.fromkeys(DOUBLE_TESTS, FAILED)


def test_a_listener_that_fails_does_not_keep_the_refactoring_from_the_others(
    reks: Reks, caplog: pytest.LogCaptureFixture
) -> None:
    """A broken listener ahead of REKS's is logged; REKS still hears of the refactoring and
    records its skipped tests as pending (else they would never be verified)."""
    heard: list[str] = []

    def broken(root: str, provenance: Provenance) -> None:
        heard.append(provenance.description)
        raise RuntimeError("a listener's own defect")

    reks.engine.listeners.insert(0, broken)
    announce_wrong_extract(reks)
    assert heard == [WRONG]
    assert "refactoring listener" in caplog.text and "a listener's own defect" in caplog.text
    assert states(reks.root) == dict.fromkeys(DOUBLE_TESTS, PENDING)


def test_budget_from_pyproject_and_too_small_a_budget(reks: Reks) -> None:
    announce_wrong_extract(reks)
    pyproject = reks.root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n[tool.reks.rts]\nverify-budget = 1e-9\n")
    result = run_pytest(reks.root, "--reks")
    # Every recorded duration is over a nanosecond: nothing fits, nothing runs.
    assert "reks: 0 selected" in result.stdout, result.stdout
    assert "verified" not in result.stdout
    assert set(states(reks.root).values()) == {PENDING}


def test_a_session_that_runs_them_anyway_verifies_a_correct_refactoring(reks: Reks) -> None:
    _, outcome = reks.apply("rename", UTIL, "def double", 4, new_name="twice")
    assert outcome is not None and outcome.skipped_tests
    assert set(states(reks.root).values()) == {PENDING}
    result = run_pytest(reks.root, "--reks-all")
    assert result.returncode == 0, result.stdout
    assert set(states(reks.root).values()) == {PASSED}
    assert "ALARM" not in result.stdout


def test_verify_skipped_alarms_undoes_and_the_shape_is_never_trusted_again(
    reks: Reks, capsys: pytest.CaptureFixture[str], _own_known_failures: Path
) -> None:
    provenance = announce_wrong_extract(reks)
    code, _, err = reks_cli(capsys, reks.root, "verify-skipped")
    assert code == 1, err
    assert f"reks ALARM: refactoring task 1, {WRONG} (extract-variable" in err
    assert "changed pkg/util.py), broke tests REKS had skipped" in err
    assert "reks verify-skipped --undo 1" in err
    # ... and exactly what to undo: the reverse patch of the task.
    assert "+    return value * 2\n" in err
    assert states(reks.root) == dict.fromkeys(DOUBLE_TESTS, FAILED)
    learnt = json.loads(_own_known_failures.read_text())["shapes"]
    mine = [s for s in learnt if s["oracle"] == "verify-skipped"]
    assert [(s["engine"], s["refactoring"]) for s in mine] == [("reks", "extract-variable")]
    info = reks_cli(capsys, reks.root, "store", "--info")[1]
    assert "skipped by refactorings: 0 pending, 0 passed, 3 failed" in info
    # The alarm stands (exit 1, e.g. in a pre-commit hook) until the tests pass again.
    assert reks_cli(capsys, reks.root, "verify-skipped", "--list")[0] == 1
    # --undo prints the reverse patch and, with --yes, restores the file.
    code, out, err = reks_cli(capsys, reks.root, "verify-skipped", "--undo", "1", "--yes")
    assert code == 0, err
    assert "-    factor = 3\n" in out and "+    return value * 2\n" in out
    assert (reks.root / UTIL).read_text() == provenance.files_before[UTIL]
    assert run_pytest(reks.root, "--reks").returncode == 0
    assert set(states(reks.root).values()) == {PASSED}
    assert reks_cli(capsys, reks.root, "verify-skipped")[0] == 0
    # The identical refactoring again is demoted to a hand edit: its tests run.
    announce_wrong_extract(reks)
    outcome = reks.listener.last
    assert outcome is not None
    assert outcome.fallback is not None and "known reks failure" in outcome.fallback
    assert set(outcome.affected_tests) == DOUBLE_TESTS
    assert outcome.skipped_tests == []


def test_a_failure_found_by_any_session_is_learnt_at_the_next_task(
    reks: Reks, _own_known_failures: Path
) -> None:
    provenance = announce_wrong_extract(reks)
    assert run_pytest(reks.root, "--reks", "--reks-verify-budget", "60").returncode == 1
    assert not _own_known_failures.exists()
    (reks.root / UTIL).write_text(provenance.files_before[UTIL])
    announce_wrong_extract(reks)
    outcome = reks.listener.last
    assert outcome is not None and outcome.fallback is not None
    assert "known reks failure" in outcome.fallback


def test_budget_picks_follow_recorded_durations() -> None:
    pending = {"a": 1.0, "b": 2.0, "c": 0.5, "d": 5.0}
    assert budget_picks(pending, 3.6, set()) == ["a", "b", "c"]
    assert budget_picks(pending, 3.6, {"b"}) == ["a", "c"]
    assert budget_picks(pending, float("inf"), set()) == ["a", "b", "c", "d"]
    assert budget_picks(pending, 0.0, set()) == []


def test_a_failure_that_ran_because_of_a_hand_edit_is_an_alarm_but_not_learnt(
    reks: Reks, _own_known_failures: Path
) -> None:
    announce_wrong_extract(reks)
    path = reks.root / UTIL
    path.write_text(path.read_text().replace("total = total * 2", "total = total + total"))
    result = run_pytest(reks.root, "--reks")
    assert "reks: 1 selected" in result.stdout, result.stdout
    assert "also ran because of edits you made by hand since" in result.stdout
    assert states(reks.root)["tests/test_util.py::test_quadruple"] == FAILED
    # The hand edit may be what broke it: the refactoring's shape is not learnt from it.
    assert learn_failures(reks.root) == []
    assert not _own_known_failures.exists()
