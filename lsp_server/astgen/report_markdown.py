"""The readable engine-test report: the markdown version of ``report.to_json``'s data,
distinct failures first, then the failure groups with their minimal programs."""

from __future__ import annotations

from typing import Any

from lsp_server.astgen.report import headline


def to_markdown(report: dict[str, Any]) -> str:
    """A readable version of the JSON report."""
    args = report["arguments"]
    versions = report["versions"]
    summ = report["summary"]
    lines = [
        "# reks engine-test report",
        "",
        f"Bound {args['bound']}; engines {', '.join(args['engines'])}; "
        f"rope {versions['rope']}, jedi {versions['jedi']}, Python {versions['python']}.",
        "",
        f"{summ['cases']} cases, {summ['checks']} checks, "
        f"{headline(summ['distinct_failures'], len(report['groups']))}.",
        "",
        "| engine | status | count |",
        "|---|---|---|",
    ]
    for engine, counts in summ["by_engine"].items():
        for status, count in counts.items():
            lines.append(f"| {engine} | {status} | {count} |")
    lines += _failures_markdown(report["failures"])
    lines += [
        "",
        "## Failure groups",
        "",
        "| # | engine | refactoring | generator | oracle | signature | count |",
        "|---|---|---|---|---|---|---|",
    ]
    for number, group in enumerate(report["groups"], 1):
        sig = ", ".join(f"{d}={v}" for d, v in group["signature"]) or "(any)"
        lines.append(
            f"| {number} | {group['engine']} | {group['refactoring']} | {group['generator']} "
            f"| {group['oracle']} | {sig} | {group['count']} |"
        )
    for number, group in enumerate(report["groups"], 1):
        lines += _group_markdown(number, group)
    if summ["refusals"]:
        lines += ["", "## Refusals", "", "| engine | refactoring | message | count |",
                  "|---|---|---|---|"]  # fmt: skip
        for refusal in summ["refusals"]:
            message = refusal["message"].replace("|", "\\|")
            lines.append(
                f"| {refusal['engine']} | {refusal['refactoring']} | {message} "
                f"| {refusal['count']} |"
            )
    return "\n".join(lines) + "\n"


def _group_markdown(number: int, group: dict[str, Any]) -> list[str]:
    """A failure group's section: its minimal program, the request and the diff."""
    example = group["example"]
    labels = ", ".join(f"{d}={v}" for d, v in example["labels"])
    lines = [
        "",
        f"### {number}. {group['engine']} {group['refactoring']}: {group['oracle']}",
        "",
        f"Labels of the minimal program: {labels}",
        "",
        "Distinct failures: " + ", ".join(f"#{n}" for n in group["failures"]),
        "",
        f"Finding: {group['detail']}",
        "",
    ]
    for path, text in example["files"].items():
        lines += [f"`{path}`:", "", "```python", text.rstrip("\n"), "```", ""]
    target = example["target"]
    lines.append(
        f"Refactoring at `{target['path']}` offset {target['offset']}"
        + (f"..{target['end']}" if target["end"] is not None else "")
        + f" with {target['args']}."
    )
    if example["diff"]:
        lines += ["", "```diff", example["diff"].rstrip("\n"), "```"]
    return lines


def _failures_markdown(failures: list[dict[str, Any]]) -> list[str]:
    """The distinct failures' table: the headline's detail."""
    lines = [
        "",
        "## Distinct failures",
        "",
        "The engine faults: the code the engine got wrong (the selected code, else the line",
        "the structural oracle names, else the signature without element positions).",
        "",
        "| # | engine | refactoring | generator | code the engine got wrong | checks | groups |",
        "|---|---|---|---|---|---|---|",
    ]
    for number, fault in enumerate(failures, 1):
        code = " / ".join(fault["code"]).replace("\n", " ⏎ ").replace("|", "\\|")
        groups = ", ".join(map(str, fault["groups"]))
        lines.append(
            f"| {number} | {fault['engine']} | {fault['refactoring']} | {fault['generator']} "
            f"| `{code}` | {fault['checks']} | {groups} |"
        )
    return lines
