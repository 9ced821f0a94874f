"""Where the time of an extreme analysis goes: the wall time of each step of ``analyse``,
measured by wrapping the steps (used by ``extreme_speed.py``)."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from typing import Any

from lsp_server.extreme import analysis as analysis_module
from lsp_server.extreme import observation_run
from lsp_server.extreme.pool import WorkerPool

PHASES = {
    "discover": (analysis_module, "discover"),
    "tests fingerprint": (analysis_module, "tests_fingerprint"),
    "state read": (analysis_module, "load_state"),
    "collection (wait for the pool)": (WorkerPool, "start"),
    "import targets, fork": (WorkerPool, "prepare"),
    "store read": (observation_run, "read_store"),
    "observation run": (WorkerPool, "observe"),
    "plan": (analysis_module, "_plan"),
    "transformations": (analysis_module, "run_planned"),
    "on disk (import time, verify)": (analysis_module, "check_on_disk"),
    "state save": (analysis_module, "save_state"),
    "workers' end": (WorkerPool, "close"),
}
PHASE_SECONDS: dict[str, float] = {}


def clock_phases() -> None:
    """Wrap the steps of ``analyse`` to add their wall time to ``PHASE_SECONDS`` (the
    workers collect while the first steps run: the pool's start is the wait that is left)."""

    def timed(label: str, step: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(step)
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return step(*args, **kwargs)
            finally:
                PHASE_SECONDS[label] = PHASE_SECONDS.get(label, 0.0) + time.perf_counter() - started

        return run

    for label, (owner, name) in PHASES.items():
        setattr(owner, name, timed(label, getattr(owner, name)))


def print_phases(total: float, of: str = "") -> None:
    parts = ", ".join(f"{label} {s:.2f}" for label, s in PHASE_SECONDS.items() if s >= 0.005)
    rest = total - sum(PHASE_SECONDS.values())
    named = f" of {of}" if of else ""
    print(f"    phases{named} (s): {parts}; other {rest:.2f} [load {os.getloadavg()[0]:.1f}]")
