"""Rows, terminal table and markdown report of an extreme analysis; the JSON under `.reks/`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_server.extreme.analysis import Analysis
from lsp_server.extreme.model import TransformationResult, Verdict
from lsp_server.extreme.reneri.compare import ABSENT
from lsp_server.project.text import write_atomic

JSON_FILE = "extreme.json"
MARKDOWN_FILE = "extreme.md"

MAX_DIFFERENCES = 5
"""Observed differences listed per transformation in the markdown report."""

PSEUDO_TESTED = "pseudo-tested"
PARTIALLY_TESTED = "partially-tested"
TESTED = "tested"


def function_status(results: Iterable[TransformationResult]) -> str | None:
    """``pseudo-tested`` when no transformation was detected, ``partially-tested`` when some
    were and some not, ``tested`` when all were; None when nothing ran (skipped, errors)."""
    verdicts = [r.verdict for r in results if r.verdict not in (Verdict.SKIPPED, Verdict.ERROR)]
    if not verdicts:
        return None
    undetected = sum(v is Verdict.UNDETECTED for v in verdicts)
    if undetected == len(verdicts):
        return PSEUDO_TESTED
    return PARTIALLY_TESTED if undetected else TESTED


@dataclass
class Summary:
    functions: int
    analysed: int  # functions with at least one transformation run
    tested: int
    pseudo_tested: int
    partially_tested: int
    skipped: int
    transformations: int
    verdicts: dict[str, int]

    @property
    def pseudo_tested_share(self) -> float:
        return self.pseudo_tested / self.analysed if self.analysed else 0.0


def summarize(analysis: Analysis) -> Summary:
    statuses = [function_status(rs) for rs in analysis.by_function().values()]
    verdicts: dict[str, int] = {}
    for result in analysis.results:
        verdicts[result.verdict.value] = verdicts.get(result.verdict.value, 0) + 1
    return Summary(
        functions=len(statuses),
        analysed=sum(s is not None for s in statuses),
        tested=statuses.count(TESTED),
        pseudo_tested=statuses.count(PSEUDO_TESTED),
        partially_tested=statuses.count(PARTIALLY_TESTED),
        skipped=sum(
            all(r.verdict is Verdict.SKIPPED for r in rs) for rs in analysis.by_function().values()
        ),
        transformations=sum(r.verdict is not Verdict.SKIPPED for r in analysis.results),
        verdicts=verdicts,
    )


def rows(
    analysis: Analysis, diagnoses: Mapping[tuple[str, str, str], Mapping[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The JSON rows: one per transformation (one per function when it was skipped).

    ``diagnoses`` maps (file, function, transformation) of undetected rows to the Reneri
    diagnosis fields added to them (``symptom``, ``suggestion``, ``differences``...)."""
    out: list[dict[str, Any]] = []
    statuses = {key: function_status(rs) for key, rs in analysis.by_function().items()}
    for result in analysis.results:
        t = result.transformation
        row: dict[str, Any] = {
            "function": t.function,
            "file": t.path,
            "line": t.line,
            "transformation": t.body,
            "verdict": result.verdict.value,
            "tests": result.tests,
            "covering": len(analysis.covering.get(f"{t.path}::{t.function}", result.tests)),
        }
        if result.reason:
            row["reason"] = result.reason
        if result.detected_by:
            row["detected_by"] = result.detected_by
        status = statuses.get(f"{t.path}::{t.function}")
        if status:
            row["status"] = status
        row["duration_ms"] = round(result.duration * 1000, 2)
        if diagnoses and result.verdict is Verdict.UNDETECTED:
            extra = diagnoses.get((t.path, t.function, t.body))
            if extra:
                row.update(extra)
        out.append(row)
    return out


def save(root: Path, data: Sequence[Mapping[str, Any]], markdown: str) -> tuple[Path, Path]:
    directory = root / ".reks"
    json_path, md_path = directory / JSON_FILE, directory / MARKDOWN_FILE
    write_atomic(json_path, json.dumps(list(data), indent=2) + "\n")
    write_atomic(md_path, markdown)
    return json_path, md_path


def table(data: Sequence[Mapping[str, Any]]) -> str:
    """Plain-text table: function, transformation, verdict, tests run (a detected
    transformation stops at the first failing test) of the covering ones."""
    header = ("function", "transformation", "verdict", "tests run")
    body = []
    for row in data:
        verdict = row["verdict"]
        if row.get("reason") and verdict != "detected":
            verdict = f"{verdict} ({row['reason']})"
        body.append(
            (
                f"{row['file']}:{row['line']} {row['function']}",
                row["transformation"],
                verdict,
                _tests_run(row),
            )
        )
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(3)]
    lines = []
    for record in [header, *body]:
        cells = [record[i].ljust(widths[i]) for i in range(3)]
        lines.append("  ".join([*cells, record[3]]).rstrip())
    for row in data:
        if row.get("symptom"):
            lines.append("")
            lines.append(
                f"{row['function']} -> {row['transformation']}: {row['symptom']}: "
                f"{row.get('suggestion', '')}"
            )
    return "\n".join(lines)


def summary_text(analysis: Analysis) -> str:
    s = summarize(analysis)
    counts = ", ".join(f"{n} {v}" for v, n in sorted(s.verdicts.items()) if v != "skipped")
    return (
        f"{s.functions} functions: {s.tested} fully tested, {s.pseudo_tested} pseudo-tested, "
        f"{s.partially_tested} partially tested, {s.skipped} skipped; "
        f"{s.transformations} transformations{f' ({counts})' if counts else ''}; "
        f"{analysis.run_count} run, {len(analysis.reused)} functions reused; "
        f"{analysis.elapsed:.1f} s"
    )


def markdown(analysis: Analysis, data: Sequence[Mapping[str, Any]]) -> str:
    lines = ["# reks extreme analysis", "", summary_text(analysis), ""]
    weak = [r for r in data if r.get("status") in (PSEUDO_TESTED, PARTIALLY_TESTED)]
    if weak:
        lines += ["## Weakly tested functions", ""]
        lines += ["| function | transformation | verdict | tests run |", "|---|---|---|---|"]
        for row in weak:
            lines.append(
                f"| `{row['file']}:{row['line']}` `{row['function']}` | `{row['transformation']}`"
                f" | {row['verdict']} | {_tests_run(row)} |"
            )
        lines.append("")
    explained = [r for r in data if r.get("symptom")]
    if explained:
        lines += ["## Why they went undetected", ""]
        for row in explained:
            lines.append(
                f"- `{row['function']}` -> `{row['transformation']}`: **{row['symptom']}**. "
                f"{row.get('suggestion', '')}"
            )
            differences = row.get("differences") or []
            for difference in differences[:MAX_DIFFERENCES]:
                lines.append(f"  - {_difference_text(difference)}")
            if len(differences) > MAX_DIFFERENCES:
                lines.append(f"  - ... and {len(differences) - MAX_DIFFERENCES} more")
        lines.append("")
    if analysis.restored:
        lines += ["## Restored files", ""]
        lines += [
            f"- `{path}`: a run stopped before its test put it back" for path in analysis.restored
        ]
        lines += ["", "Each got back its bytes from before the analysis.", ""]
    skipped = [r for r in data if r["verdict"] == "skipped"]
    if skipped:
        lines += ["## Skipped", ""]
        for row in skipped:
            reason = row.get("reason") or "not analysed"
            lines.append(f"- `{row['file']}:{row['line']}` `{row['function']}`: {reason}")
        lines.append("")
    return "\n".join(lines)


def _tests_run(row: Mapping[str, Any]) -> str:
    run = len(row["tests"])
    covering = row.get("covering")
    return f"{run} of {covering}" if isinstance(covering, int) and covering >= run else str(run)


def _difference_text(difference: Mapping[str, Any] | str) -> str:
    if not isinstance(difference, Mapping):
        return str(difference)
    line = difference.get("line")
    path = difference.get("path")
    where = f"at {path}:{line}" if line is not None else f"in a call from {path}"
    return (
        f"`{difference.get('expression')}` {where} ({difference.get('stage')}): "
        f"{_seen(difference.get('original'))} originally, "
        f"{_seen(difference.get('transformed'))} transformed"
    )


def _seen(value: Any) -> str:
    return "not seen" if value == ABSENT else str(value)
