"""Rendering of diagnoses for ``reks extreme --explain``: terminal text and markdown."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from .model import Diagnosis

SYMPTOMS = ("no-infection", "no-propagation", "weak-oracle")


def to_json(diagnoses: Sequence[Diagnosis]) -> list[dict[str, Any]]:
    return [diagnosis.to_json() for diagnosis in diagnoses]


def shares(diagnoses: Sequence[Diagnosis]) -> dict[str, float]:
    """Share of each symptom among the diagnoses that got one (``unknown`` left out)."""
    counts: Counter[str] = Counter(d.symptom for d in diagnoses if d.symptom in SYMPTOMS)
    total = sum(counts.values())
    return {symptom: (counts[symptom] / total if total else 0.0) for symptom in SYMPTOMS}


def to_text(diagnoses: Sequence[Diagnosis]) -> str:
    lines: list[str] = []
    for diagnosis in diagnoses:
        t = diagnosis.transformation
        lines.append(f"{t.path}:{t.line}  {t.function}  -> {t.body}  [{diagnosis.symptom}]")
        lines.append(f"    {diagnosis.suggestion}")
        if diagnosis.assertion is not None:
            a = diagnosis.assertion
            lines.append(f"    insert after {a.path}:{a.line}: {a.text.strip()}")
        for difference in diagnosis.differences[:3]:
            where = f"{difference.path}:{difference.line}" if difference.line else difference.path
            lines.append(
                f"    {difference.stage:<11} {where}  {difference.expression}: "
                f"{difference.original} -> {difference.transformed}"
            )
        if diagnosis.error:
            lines.append(f"    note: {diagnosis.error.splitlines()[0]}")
    lines.append(_summary(diagnoses))
    return "\n".join(lines)


def to_markdown(diagnoses: Sequence[Diagnosis]) -> str:
    out = ["# Why the tests miss these transformations", "", _summary(diagnoses), ""]
    for diagnosis in diagnoses:
        t = diagnosis.transformation
        out.append(f"## `{t.function}` -> `{t.body}` ({t.path}:{t.line})")
        out.append("")
        out.append(f"**{diagnosis.symptom}**: {diagnosis.suggestion}")
        out.append("")
        if diagnosis.assertion is not None:
            a = diagnosis.assertion
            out += [f"Insert after {a.path}:{a.line}:", "", "```python", a.text, "```", ""]
        if diagnosis.differences:
            out += [
                "| stage | location | expression | original | transformed |",
                "|---|---|---|---|---|",
            ]
            for d in diagnosis.differences[:10]:
                where = f"{d.path}:{d.line}" if d.line else d.path
                out.append(
                    f"| {d.stage} | {where} | `{_cell(d.expression)}` | `{_cell(d.original)}` "
                    f"| `{_cell(d.transformed)}` |"
                )
            out.append("")
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


def _summary(diagnoses: Sequence[Diagnosis]) -> str:
    counts: Counter[str] = Counter(d.symptom for d in diagnoses)
    parts = [f"{counts[s]} {s}" for s in (*SYMPTOMS, "unknown") if counts[s]]
    return f"{len(diagnoses)} undetected transformation(s): " + (", ".join(parts) or "none")
