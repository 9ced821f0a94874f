"""Verifying what REKS skipped: trust by evidence, and keep checking.

REKS skips the tests a trusted refactoring task cannot have broken, and the store logs
them (``DependencyStore.remember_skipped``). Any later ``pytest --reks`` session that runs
one of them settles it (``settle_session``): passed means verified, failed raises an
**alarm** naming the task. This module holds what sessions and front ends share:

* ``budget_picks``: which pending tests fit in a time budget (recorded durations);
* the pytest side (``lsp_server.rts.verify_session``) runs pending tests after the
  selected ones within a budget and reports them separately;
* ``alarms`` / ``describe_alarm`` / ``undo_patch``: what a failure says, and exactly what
  to undo (the reverse patch of the task, from the text it left).
"""

from __future__ import annotations

import difflib
import math
import time
from dataclasses import dataclass
from typing import Any

from lsp_server.rts.store import FAILED, DependencyStore, SkippedTest, TaskEvidence


@dataclass(frozen=True)
class Alarm:
    """A refactoring task whose skipped tests failed when they ran later."""

    task_id: int
    kind: str
    description: str
    applied: float
    files: tuple[str, ...]
    tests: tuple[str, ...]
    target: dict[str, Any] | None
    after_hand_edits: bool = False
    """Some of the tests also ran because of edits made by hand: they may be the cause."""

    @property
    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.applied))


def alarms(store: DependencyStore, failed: list[SkippedTest] | None = None) -> list[Alarm]:
    """One alarm per task among ``failed`` (default: every failed verification)."""
    if failed is None:
        failed = store.skipped_tests([FAILED])
    by_task: dict[int, list[SkippedTest]] = {}
    for skipped in failed:
        by_task.setdefault(skipped.task_id, []).append(skipped)
    out = []
    for task_id, tests in sorted(by_task.items()):
        evidence = store.task_evidence(task_id)
        first = tests[0]
        out.append(
            Alarm(
                task_id,
                first.task_kind,
                first.task_description,
                first.task_applied,
                _changed_files(evidence),
                tuple(sorted({t.nodeid for t in tests})),
                None if evidence is None else evidence.target,
                any(t.after_hand_edits for t in tests),
            )
        )
    return out


def _changed_files(evidence: TaskEvidence | None) -> tuple[str, ...]:
    if evidence is None:
        return ()
    return tuple(p for p, (before, after) in sorted(evidence.files.items()) if before != after)


def describe_alarm(alarm: Alarm) -> list[str]:
    """The alarm for people: the task that broke the tests, and what to undo."""
    tests = ", ".join(alarm.tests[:5])
    if len(alarm.tests) > 5:
        tests += f" and {len(alarm.tests) - 5} more"
    files = ", ".join(alarm.files) or "no recorded files"
    if alarm.after_hand_edits:
        return [
            f"reks ALARM: tests REKS had skipped after refactoring task {alarm.task_id},"
            f" {alarm.description} ({alarm.kind}, applied {alarm.when}, changed {files}),"
            f" fail: {tests}",
            "  they also ran because of edits you made by hand since: check those edits,"
            f" else undo the refactoring (`reks verify-skipped --undo {alarm.task_id}`"
            " prints the patch, `--yes` applies it)",
        ]
    return [
        f"reks ALARM: refactoring task {alarm.task_id}, {alarm.description} ({alarm.kind},"
        f" applied {alarm.when}, changed {files}), broke tests REKS had skipped: {tests}",
        f"  undo it: revert its edits to {files} (`reks verify-skipped --undo"
        f" {alarm.task_id}` prints the patch, `--yes` applies it); refactorings of its"
        " shape are no longer trusted",
    ]


def undo_patch(evidence: TaskEvidence) -> str:
    """The unified diff that takes each file the task changed back to its text before."""
    chunks: list[str] = []
    for path, (before, after) in sorted(evidence.files.items()):
        if before == after:
            continue
        chunks.extend(
            difflib.unified_diff(
                (after or "").splitlines(keepends=True),
                (before or "").splitlines(keepends=True),
                fromfile=f"a/{path}" if after is not None else "/dev/null",
                tofile=f"b/{path}" if before is not None else "/dev/null",
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in chunks)


def budget_picks(pending: dict[str, float], budget: float, exclude: set[str]) -> list[str]:
    """The pending tests (in their order) whose recorded durations fit in ``budget``
    seconds together; an unbounded budget takes them all."""
    picks: list[str] = []
    spent = 0.0
    for nodeid, duration in pending.items():
        if nodeid in exclude:
            continue
        if math.isinf(budget) or spent + duration <= budget:
            picks.append(nodeid)
            spent += duration
    return picks


@dataclass(frozen=True)
class Place:
    """Where a task's edit begins in the text it left: root-relative path, 0-based line."""

    path: str
    line: int
    text: str
    """That line's text."""


def refactored_place(evidence: TaskEvidence) -> Place | None:
    """The first line the task changed in the file it was asked for (else its first
    changed file), in the text after the task."""
    target = evidence.target or {}
    paths = sorted(evidence.files, key=lambda p: (p != target.get("path"), p))
    for path in paths:
        before, after = evidence.files[path]
        if after is None or before == after:
            continue
        old, new = (before or "").splitlines(), after.splitlines()
        line = next(
            (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
            min(len(old), len(new)),
        )
        line = min(line, max(len(new) - 1, 0))
        return Place(path, line, new[line] if new else "")
    return None
