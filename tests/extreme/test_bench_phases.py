"""``bench/extreme_phases.py`` wraps the steps of an analysis by name: a step renamed or
moved to another module must break this test, not the benchmark on the day it is run."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "extreme_phases.py"


def test_every_phase_names_a_step_that_exists() -> None:
    spec = importlib.util.spec_from_file_location("reks_bench_extreme_phases", BENCH)
    assert spec is not None and spec.loader is not None
    phases_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(phases_module)
    missing = [
        f"{label}: {getattr(owner, '__name__', owner)}.{name}"
        for label, (owner, name) in phases_module.PHASES.items()
        if not callable(getattr(owner, name, None))
    ]
    assert missing == []
