"""Reneri: why an extreme transformation went undetected, and the test change that catches it.

``diagnose`` runs the covering tests of each undetected transformation on the original and
the transformed code (in memory, in one pytest subprocess per transformation, ``runs``
times per side), compares what it observes at every invocation of the function (infection)
and in the test bodies (propagation), and classifies the transformation as
``no-infection``, ``no-propagation`` or ``weak-oracle`` with a suggestion in plain English
and, for weak oracles, the assertion to insert.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lsp_server.extreme.model import TransformationResult, Verdict
from lsp_server.jobs import Job

from .model import Assertion, Caller, Diagnosis, Difference, Symptom

__all__ = [
    "Assertion",
    "Caller",
    "Diagnosis",
    "Difference",
    "Symptom",
    "diagnose",
    "diagnose_one",
]

DEFAULT_TIMEOUT = 60.0
"""Seconds one run of the covering tests may take before it is killed."""


def diagnose(
    root: Path,
    results: Sequence[TransformationResult],
    *,
    runs: int = 10,
    job: Job | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    python: str | None = None,
) -> list[Diagnosis]:
    """One diagnosis per UNDETECTED result, in order.

    ``runs`` runs per side; properties that vary between runs of one side are ignored.
    ``timeout`` bounds one run of the covering tests; ``python`` is the interpreter that
    runs them (default: this one). Raises ``Cancelled`` when ``job`` is cancelled.
    """
    job = job or Job()
    todo = [r for r in results if r.verdict == Verdict.UNDETECTED]
    diagnoses: list[Diagnosis] = []
    for done, result in enumerate(todo):
        job.check()
        job.report(done, len(todo), f"diagnosing {result.transformation.function}")
        diagnoses.append(
            diagnose_one(Path(root), result, runs=runs, timeout=timeout, python=python, job=job)
        )
    job.report(len(todo), len(todo), "diagnosis done")
    return diagnoses


def diagnose_one(
    root: Path,
    result: TransformationResult,
    *,
    runs: int = 10,
    timeout: float = DEFAULT_TIMEOUT,
    python: str | None = None,
    job: Job | None = None,
) -> Diagnosis:
    """The diagnosis of one undetected transformation (see ``diagnose``)."""
    import time

    from .callgraph import nearest_public_callers
    from .classify import classify
    from .compare import differences, stable
    from .observation_runs import run_observations

    started = time.monotonic()
    transformation = result.transformation
    observations = run_observations(
        root, transformation, result.tests, runs=runs, timeout=timeout, python=python, job=job
    )
    compared = min(len(observations.original), len(observations.transformed))
    if observations.error or compared == 0:
        reason = observations.error or "no run finished on one side: " + ", ".join(
            observations.failed_runs
        )
        return Diagnosis(
            transformation,
            "unknown",
            f"Could not analyse `{transformation.function}`: {reason}.",
            error=f"{reason}\n{observations.log}".strip(),
            duration=time.monotonic() - started,
        )
    original = stable(observations.original)
    transformed = stable(observations.transformed)
    diagnosis = classify(
        root,
        transformation,
        result.tests,
        observations.meta,
        original,
        transformed,
        observations.original[0],
        differences(original, transformed),
        lambda: nearest_public_callers(
            root, transformation.path, transformation.function, transformation.line
        ),
    )
    diagnosis.runs = compared
    if observations.failed_runs:
        diagnosis.error = "runs lost: " + ", ".join(observations.failed_runs)
    diagnosis.duration = time.monotonic() - started
    return diagnosis
