"""``bench/extreme_speed.py`` extrapolates the naive way's cost from a sample: a
transformation that hangs costs the naive way its wait too, never only the median of
transformations that ended."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.transform_run import PAST_HANGS

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def speed(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))  # its sibling modules
    spec = importlib.util.spec_from_file_location(
        "reks_bench_extreme_speed", BENCH / "extreme_speed.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


def _result(verdict: Verdict, duration: float, reason: str = "") -> TransformationResult:
    t = Transformation("m.py", "f", 1, "pass")
    return TransformationResult(
        t, verdict, tests=["test_m.py::t"], reason=reason, duration=duration
    )


def test_timeouts_are_not_sampled_and_cost_the_naive_way_a_wait(speed: ModuleType) -> None:
    busy = _result(Verdict.TIMEOUT, 0.3, "a test used more CPU time than its budget (busy)")
    hung = _result(Verdict.TIMEOUT, 4.0, "a test ran past its deadline")
    ran = [busy, hung, *[_result(Verdict.DETECTED, 0.01) for _ in range(5)]]
    assert all(r.verdict is not Verdict.TIMEOUT for r in speed.naive_sample(ran, 8))
    assert speed.naive_timeout_seconds(busy, 0.25) == pytest.approx(0.25 + 0.3)
    # Half of reks's 4 s (one run of two), but no more than the least deadline of a test.
    assert speed.naive_timeout_seconds(hung, 0.25) == pytest.approx(0.25 + 1.0)


def test_a_timeout_costs_the_naive_way_no_more_than_one_deadline(speed: ModuleType) -> None:
    # reks looked past 200 hangs for a failing test (jmespath: ~200 s); the naive way,
    # stopping at the first hang (``-x``), waits for one deadline only.
    busy = _result(Verdict.TIMEOUT, 200.0, "a test used more CPU time than its budget (busy)")
    assert speed.naive_timeout_seconds(busy, 0.25) == pytest.approx(0.25 + 1.0)


def test_detections_past_a_hang_are_not_sampled(speed: ModuleType) -> None:
    # Run the naive way, in the order reks ran them, the hanging test comes first.
    past = _result(Verdict.DETECTED, 0.3, f"{PAST_HANGS} 2 test(s) hung first, the first t")
    ran = [past, *[_result(Verdict.DETECTED, 0.01) for _ in range(5)]]
    assert past not in speed.naive_sample(ran, 8)


def test_detections_past_a_hang_cost_the_naive_way_a_wait(speed: ModuleType) -> None:
    # On disk, the first test hangs too (tomlkit's ``Source.inc -> return True`` ran until
    # killed): the naive way waits for it; reks's 0.9 s were three children, one per hang
    # passed and the one that failed.
    past = _result(Verdict.DETECTED, 0.9, f"{PAST_HANGS} 2 test(s) hung first, the first t")
    plain = [_result(Verdict.DETECTED, 0.01) for _ in range(5)]
    assert speed.naive_timeout_seconds(past, 0.25) == pytest.approx(0.25 + 0.3)
    total, waits, hanging = speed.naive_seconds([past, *plain], [(p, 0.25) for p in plain])
    assert (hanging, waits) == (1, pytest.approx(0.55))
    assert total == pytest.approx(5 * 0.25 + 0.55)


def test_undetected_verdicts_cost_the_naive_way_what_their_own_runs_took(
    speed: ModuleType,
) -> None:
    # An undetected verdict runs every covering test, a detection often only the first: a
    # median over a sample of both, charged to every transformation, charged each
    # undetected one a detection's cost. Each kind is extrapolated from its own sample,
    # and what was measured is charged as measured.
    undetected = [_result(Verdict.UNDETECTED, 1.0) for _ in range(4)]
    detected = [_result(Verdict.DETECTED, 0.01) for _ in range(20)]
    measured = [(undetected[0], 10.0), (undetected[1], 12.0)]
    measured += [(d, 5.0 + i) for i, d in enumerate(detected[:3])]  # median 6
    total, waits, hanging = speed.naive_seconds([*undetected, *detected], measured)
    assert (hanging, waits) == (0, 0.0)
    unmeasured = 2 * 11.0 + 17 * 6.0
    assert total == pytest.approx(10.0 + 12.0 + (5.0 + 6.0 + 7.0) + unmeasured)


def test_the_naive_sample_holds_detected_verdicts_however_many_undetected_there_are(
    speed: ModuleType,
) -> None:
    # A wrong detection hides a pseudo-tested function: the agreement must sample both.
    undetected = [_result(Verdict.UNDETECTED, 1.0) for _ in range(20)]
    detected = [_result(Verdict.DETECTED, 0.01) for _ in range(10)]
    sample = speed.naive_sample([*undetected, *detected], 8)
    assert len(sample) == 8
    assert sum(r.verdict is Verdict.DETECTED for r in sample) == 4


def test_a_detection_the_naive_way_does_not_repeat_is_a_listed_disagreement(
    speed: ModuleType,
) -> None:
    detected = _result(Verdict.DETECTED, 0.01, "test_m.py::t failed in call: AssertionError")
    undetected = _result(Verdict.UNDETECTED, 1.0)
    agreement = speed.naive_agreement([detected, undetected], [False, False])
    assert (agreement.agree, agreement.detected, agreement.agree_detected) == (1, 1, 0)
    assert (agreement.undetected, agreement.agree_undetected) == (1, 1)
    assert len(agreement.disagreements) == 1
    assert "m.py::f -> pass: detected by reks" in agreement.disagreements[0]


def test_the_figures_name_the_pytest_plugins_each_naive_run_loads(speed: ModuleType) -> None:
    # A developer's venv of reks holds pytest-lsp: each naive run imports lsprotocol,
    # which a user's venv does not; the figures say which kind of venv they come from.
    plugins = speed.pytest_plugins().split(", ")
    assert "reks" in plugins  # this interpreter's, installed with reks
    assert plugins == sorted(plugins)
