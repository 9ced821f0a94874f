"""Group failures by shape and by fault, and make the JSON report (``report_markdown``
renders it).

The headline is the distinct failures (``distinct_failures``: the engine faults, counted as
the ASTGen and field-exhaustive papers count bugs); the failure groups are the detail, each
naming the distinct failures its programs show. A failure group is (engine, refactoring,
generator, oracle, signature). The signature is the part of the label vector that matters:
the labels left after dropping, one by one, every label without which the remaining ones
still select only failing cases (see ``signatures``). So the programs that fail because
of ``getattr`` whatever else they contain form one group whose signature names
``getattr``. Each group keeps its smallest program.
"""

from __future__ import annotations

import difflib
import json
import platform
import re
import textwrap
from collections import defaultdict
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from lsp_server.astgen import oracles
from lsp_server.astgen.check import CheckResult
from lsp_server.astgen.driver import RunOutcome
from lsp_server.astgen.gen import Label, Labelled
from lsp_server.astgen.program import Case

REPORT_VERSION = 1


@dataclass
class FailureGroup:
    engine: str
    kind: str
    generator: str
    oracle: str
    signature: tuple[Label, ...]
    members: list[CheckResult] = field(default_factory=list)
    example: CheckResult | None = None
    example_case: Case | None = None

    @property
    def key(self) -> tuple[str, str, str, str, tuple[Label, ...]]:
        return (self.engine, self.kind, self.generator, self.oracle, self.signature)

    @property
    def detail(self) -> str:
        assert self.example is not None
        for finding in self.example.findings:
            if finding.oracle == self.oracle:
                return finding.detail
        return ""


@dataclass
class _PatternTest:
    """Does every row with all labels of a pattern fail an oracle? (memoised)"""

    everything: set[int]
    having: dict[Label, set[int]]
    failing: dict[str, set[int]]
    memo: dict[tuple[str, frozenset[Label]], bool] = field(default_factory=dict)

    def holds(self, oracle: str, pattern: frozenset[Label]) -> bool:
        key = (oracle, pattern)
        if key not in self.memo:
            matching = set(self.everything)
            for label in pattern:
                matching &= self.having[label]
            self.memo[key] = matching <= self.failing[oracle]
        return self.memo[key]


def signatures(results: list[CheckResult]) -> dict[tuple[int, str, str], tuple[Label, ...]]:
    """(case index, engine, oracle) -> the labels of that failure that matter.

    Greedy generalisation: starting from the failing case's whole label vector, drop each
    label in turn if every checked case that has the remaining labels still fails the same
    oracle. What is left is a pattern that only failing cases match, so failures that share
    it are one group."""
    rows: dict[tuple[str, str, str], dict[tuple[Label, ...], set[str]]] = defaultdict(dict)
    for r in results:
        failed = rows[(r.engine, r.kind, r.generator)].setdefault(r.labels, set())
        failed.update(f.oracle for f in r.findings)
    out: dict[tuple[int, str, str], tuple[Label, ...]] = {}
    for family, table in rows.items():
        vectors = list(table)
        everything = set(range(len(vectors)))
        having: dict[Label, set[int]] = defaultdict(set)
        failing: dict[str, set[int]] = defaultdict(set)
        for row, labels in enumerate(vectors):
            for label in labels:
                having[label].add(row)
            for oracle in table[labels]:
                failing[oracle].add(row)
        only_failing = _PatternTest(everything, having, failing)
        generalised: dict[tuple[tuple[Label, ...], str], tuple[Label, ...]] = {}
        for labels, failed in table.items():
            for oracle in failed:
                pattern = set(labels)
                for label in labels:
                    if only_failing.holds(oracle, frozenset(pattern - {label})):
                        pattern.discard(label)
                generalised[(labels, oracle)] = tuple(x for x in labels if x in pattern)
        for r in results:
            if (r.engine, r.kind, r.generator) != family:
                continue
            for finding in r.findings:
                out[(r.index, r.engine, finding.oracle)] = generalised[(r.labels, finding.oracle)]
    return out


def group_failures(
    results: list[CheckResult], cases: list[tuple[str, Labelled[Case]]]
) -> list[FailureGroup]:
    """Failures grouped by engine, refactoring, generator, oracle and signature; each group
    with its smallest program as the example. Sorted by key."""
    sigs = signatures(results)
    groups: dict[tuple[Any, ...], FailureGroup] = {}
    for r in results:
        for finding in r.findings:
            sig = sigs[(r.index, r.engine, finding.oracle)]
            key = (r.engine, r.kind, r.generator, finding.oracle, sig)
            group = groups.get(key)
            if group is None:
                group = groups[key] = FailureGroup(*key)
            group.members.append(r)
            case = cases[r.index][1].value
            if (
                group.example is None
                or group.example_case is None
                or (case.program.size, r.index)
                < (group.example_case.program.size, group.example.index)
            ):
                group.example, group.example_case = r, case
    return [groups[k] for k in sorted(groups)]


FaultyCode = tuple[str, ...]
"""What a distinct failure is known by (``distinct_failures``)."""
FailureKey = tuple[str, str, str, FaultyCode]
"""A distinct failure: (engine, refactoring, generator, the code the engine got wrong)."""


def headline(distinct: int, groups: int) -> str:
    """``3 distinct failures (6 failure groups)``: the papers' count first."""
    return f"{distinct} distinct failures ({groups} failure groups)"


_POSITION = re.compile(r"\d+$")
_LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):")


def distinct_failures(
    results: list[CheckResult], cases: list[tuple[str, Labelled[Case]]]
) -> dict[tuple[int, str, str], FailureKey]:
    """(case index, engine, oracle) -> the distinct failure (the engine fault) it shows:
    (engine, refactoring, generator, the code the engine got wrong).

    ASTGen counts unique bugs, not failing programs nor their shapes: an exhaustive
    generator shows each bug in many variations (one RenameField bug behind 40 failing
    programs), and the field-exhaustive paper counts the bugs its suites find among those.
    The code the engine got wrong names the bug, whatever program surrounds it: the code a
    selection refactoring acts on (the text selected), else the occurrence the structural
    oracle names in the result (the line left unrenamed), taken by every finding of that
    check; else the failure's signature without element positions and ``nth`` (the same
    construct failing as the first or second element is one bug)."""
    sigs = signatures(results)
    out: dict[tuple[int, str, str], FailureKey] = {}
    for r in results:
        case = cases[r.index][1].value
        code = selected_code(case) or _structural_line(r)
        for finding in r.findings:
            faulty: FaultyCode
            if code is not None:
                faulty = (code,)
            else:
                sig = sigs[(r.index, r.engine, finding.oracle)]
                faulty = tuple(f"{_POSITION.sub('', d)}={v}" for d, v in sig if d != "nth")
            out[(r.index, r.engine, finding.oracle)] = (r.engine, r.kind, r.generator, faulty)
    return out


def selected_code(case: Case) -> str | None:
    """The code a selection refactoring acts on, dedented (None: no selection)."""
    target = case.target
    if target.end is None:
        return None
    text = case.program.file_map[target.path][target.offset : target.end]
    return textwrap.dedent(text.strip("\n")).strip()


def _structural_line(result: CheckResult) -> str | None:
    for finding in result.findings:
        match = _LINE.match(finding.detail)
        if finding.oracle.startswith(oracles.STRUCTURAL) and match and result.after:
            lines = result.after.get(match["path"], "").splitlines()
            number = int(match["line"])
            if 0 < number <= len(lines):
                return lines[number - 1].strip()
    return None


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("rope", "jedi"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "missing"
    return out


def summary(outcome: RunOutcome) -> dict[str, Any]:
    """Counts per engine and status, refusals by message: everything but the groups."""
    status: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    refusals: dict[tuple[str, str, str], int] = defaultdict(int)
    for r in outcome.results:
        status[r.engine][r.status] += 1
        if r.status == "refused":
            refusals[(r.engine, r.kind, r.message.split("\n")[0][:200])] += 1
    return {
        "cases": outcome.cases,
        "checks": outcome.checks,
        "by_engine": {e: dict(sorted(s.items())) for e, s in sorted(status.items())},
        "refusals": [
            {"engine": e, "refactoring": k, "message": m, "count": n}
            for (e, k, m), n in sorted(refusals.items())
        ],
    }


def _diff(before: dict[str, str], after: dict[str, str] | None) -> str:
    if after is None:
        return ""
    lines: list[str] = []
    for path in sorted(set(before) | set(after)):
        old = before.get(path, "").splitlines(keepends=True)
        new = after.get(path, "").splitlines(keepends=True)
        lines += difflib.unified_diff(old, new, f"a/{path}", f"b/{path}")
    return "".join(lines)


def _fault_rows(
    groups: list[FailureGroup], failures: dict[tuple[int, str, str], FailureKey]
) -> tuple[list[dict[str, Any]], list[list[int]]]:
    """The distinct failures (sorted, numbered from 1) with the failing checks and groups
    that show each, and per group the numbers of the distinct failures it shows."""
    numbers = {key: number for number, key in enumerate(sorted(set(failures.values())), 1)}
    checks: dict[int, set[tuple[int, str]]] = defaultdict(set)
    for (index, engine, _), key in failures.items():
        checks[numbers[key]].add((index, engine))
    groups_of: dict[int, list[int]] = defaultdict(list)
    per_group = []
    for group_number, group in enumerate(groups, 1):
        shown = sorted(
            {numbers[failures[(r.index, r.engine, group.oracle)]] for r in group.members}
        )
        for number in shown:
            groups_of[number].append(group_number)
        per_group.append(shown)
    rows = [
        {"engine": engine, "refactoring": kind, "generator": generator, "code": list(code),
         "checks": len(checks[number]), "groups": groups_of[number]}
        for (engine, kind, generator, code), number in numbers.items()
    ]  # fmt: skip
    return rows, per_group


def to_json(
    outcome: RunOutcome,
    groups: list[FailureGroup],
    failures: dict[tuple[int, str, str], FailureKey],
) -> dict[str, Any]:
    """The JSON report: arguments, versions, counts, the distinct failures (``failures``,
    from ``distinct_failures``) and each group with its minimal program and the distinct
    failures it shows. No timings, so the same arguments give the same file."""
    config = outcome.config
    fault_rows, faults_of_group = _fault_rows(groups, failures)
    out_groups = []
    for group, faults in zip(groups, faults_of_group, strict=True):
        assert group.example is not None and group.example_case is not None
        case = group.example_case
        target = case.target
        out_groups.append(
            {
                "engine": group.engine,
                "refactoring": group.kind,
                "generator": group.generator,
                "oracle": group.oracle,
                "signature": [list(label) for label in group.signature],
                "count": len(group.members),
                "failures": faults,
                "detail": group.detail,
                "example": {
                    "case": group.example.index,
                    "labels": [list(label) for label in group.example.labels],
                    "files": dict(case.program.files),
                    "target": {
                        "path": target.path,
                        "offset": target.offset,
                        "end": target.end,
                        "args": dict(target.args),
                        "expect_refusal": target.expect_refusal,
                    },
                    "diff": _diff(case.program.file_map, group.example.after),
                },
            }
        )
    return {
        "version": REPORT_VERSION,
        "arguments": {
            "bound": config.bound,
            "refactorings": list(config.refactorings),
            "generators": list(config.generators),
            "engines": list(config.engines),
            "inverse": config.inverse,
            "limit": config.limit,
        },
        "versions": _versions(),
        "summary": {**summary(outcome), "distinct_failures": len(fault_rows)},
        "failures": fault_rows,
        "groups": out_groups,
    }


def dumps(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=False, ensure_ascii=False) + "\n"
