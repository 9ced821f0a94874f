"""``--explain``: the Reneri diagnosis of every undetected transformation, as row fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsp_server.extreme.analysis import Analysis
from lsp_server.extreme.model import Verdict
from lsp_server.jobs import Job

DiagnosisKey = tuple[str, str, str]
"""(file, function, transformation body) of an undetected row."""


class ExplainUnavailable(RuntimeError):
    """The Reneri diagnosis cannot be imported."""


def explain(
    root: Path,
    analysis: Analysis,
    runs: int = 10,
    job: Job | None = None,
    python: str | None = None,
) -> dict[DiagnosisKey, dict[str, Any]]:
    """Diagnose every undetected transformation; fields to merge into its JSON row."""
    try:
        from lsp_server.extreme.reneri import diagnose
    except ImportError as exc:  # the diagnosis package is optional at this layer
        raise ExplainUnavailable(f"the Reneri diagnosis is not available: {exc}") from exc
    undetected = [r for r in analysis.results if r.verdict is Verdict.UNDETECTED]
    if not undetected:
        return {}
    diagnoses = diagnose(root, undetected, runs=runs, job=job, python=python)
    out: dict[DiagnosisKey, dict[str, Any]] = {}
    for diagnosis in diagnoses:
        t = diagnosis.transformation
        data = diagnosis.to_json()
        fields = {
            "symptom": data["symptom"],
            "suggestion": data["suggestion"],
            "differences": data.get("differences", []),
        }
        for extra in ("test", "test_line", "assertion", "callers", "error"):
            if data.get(extra):
                fields[extra] = data[extra]
        out[(t.path, t.function, t.body)] = fields
    return out
