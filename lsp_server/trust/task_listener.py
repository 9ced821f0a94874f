"""Joining the refactoring engine to the REKS rules: one listener per engine.

``install(engine)`` appends a ``TaskListener`` to ``engine.listeners``; the engine calls it
once per applied task (CLI ``reks refactor ... --apply``, the server after the client
applied an edit, refactor-on-save). The listener verifies the task (trust but verify),
applies the REKS rules to the project's dependency store and tells its subscribers (the
server's diagnostics) what happened. Before checking a task it learns the shapes of
earlier tasks whose skipped tests failed since (``lsp_server.trust.verification``).
No pygls here: the CLI uses it too.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_server.rts.provenance import Provenance
from lsp_server.rts.refactoring_rules import TaskOutcome, record_refactoring
from lsp_server.rts.test_status import test_status

if TYPE_CHECKING:
    from lsp_server.refactor.engine import RefactorEngine

log = logging.getLogger(__name__)

Subscriber = Callable[[str, Provenance, "TaskOutcome | None"], None]

_VERDICTS: list[tuple[Provenance, str, str | None]] = []
_VERDICTS_LOCK = threading.Lock()


def verdict(
    root: str, provenance: Provenance, unsaved: Mapping[str, str] | None = None
) -> str | None:
    """``verify`` once per task: the editor flags a demoted task when it is applied and the
    listener then records it, with the same verdict and without running the checks (jedi
    among them) twice. Remembers the last few tasks by identity."""
    with _VERDICTS_LOCK:
        for known, known_root, reason in _VERDICTS:
            if known is provenance and known_root == root:
                return reason
        from lsp_server.trust.checks import verify  # loaded by the first task (issue 15)

        reason = verify(root, provenance, unsaved)
        _VERDICTS.append((provenance, root, reason))
        del _VERDICTS[:-8]
        return reason


@dataclass
class TaskListener:
    """The engine listener; ``trust_but_verify`` is read on every task (settings change)."""

    trust_but_verify: Callable[[], bool] = lambda: True
    subscribers: list[Subscriber] = field(default_factory=list)
    last: TaskOutcome | None = None

    def __call__(self, root: str, provenance: Provenance) -> None:
        distrust = None
        if self.trust_but_verify():
            from lsp_server.trust.verification import learn_failures

            try:
                learn_failures(root)  # a failure found since the last task counts now
            except Exception:
                log.exception("reks: learning from failed verifications in %s failed", root)
            distrust = verdict(root, provenance)
        outcome = record_refactoring(root, provenance, distrust=distrust)
        self.last = outcome
        if outcome is not None:
            log.info(
                "reks: %s: %d tests skipped, %d affected (%.1f ms)%s",
                provenance.description,
                len(outcome.skipped_tests),
                len(outcome.affected_tests),
                outcome.seconds * 1000,
                f"; treated as a hand edit: {outcome.fallback}" if outcome.fallback else "",
            )
        for subscriber in list(self.subscribers):
            try:
                subscriber(root, provenance, outcome)
            except Exception:
                log.exception("reks subscriber %r failed", subscriber)


def task_summary(
    provenance: Provenance, outcome: TaskOutcome | None, running: Collection[str] = ()
) -> str:
    """One line for people: what REKS did with this task. ``running``: the tests that run
    anyway (other changes select them): the task spares none of those."""
    if outcome is None:
        return f"reks: {provenance.description}: no recorded tests to update"
    if outcome.fallback is not None:
        return (
            f"reks: {provenance.description} was treated as a hand edit ({outcome.fallback});"
            f" {len(outcome.affected_tests)} tests must run"
        )
    spared = [nodeid for nodeid in outcome.skipped_tests if nodeid not in running]
    text = (
        f"reks: {provenance.description}: {len(spared)} tests need not run"
        f" (plain dependency selection would rerun them; rules {outcome.seconds * 1000:.0f} ms)"
    )
    if outcome.affected_tests:
        text += f"; {len(outcome.affected_tests)} must run because of earlier hand edits"
    others = len(outcome.skipped_tests) - len(spared)
    if others:
        text += f"; {others} more depend on it but run anyway for other changes"
    return text


def running_tests(
    root: str, overlays: Mapping[str, str] | None = None, python: str | None = None
) -> set[str]:
    """The tests the project's current changes select (none without a store); ``python``
    runs the tests (``test_status``)."""
    status = test_status(Path(root), overlays, python)
    return set() if status is None else set(status.affected)


def _to_stderr(root: str, provenance: Provenance, outcome: TaskOutcome | None) -> None:
    print(task_summary(provenance, outcome, running_tests(root)), file=sys.stderr)


def install(
    engine: RefactorEngine,
    trust_but_verify: Callable[[], bool] = lambda: True,
    report: Subscriber | None = _to_stderr,
) -> TaskListener:
    """Add the REKS listener to a ``RefactorEngine`` (once) and return it; ``report`` (for
    the CLI: one line on stderr per task) is told what REKS did."""
    listeners = engine.listeners
    for existing in listeners:
        if isinstance(existing, TaskListener):
            existing.trust_but_verify = trust_but_verify
            return existing
    listener = TaskListener(trust_but_verify)
    if report is not None:
        listener.subscribers.append(report)
    listeners.append(listener)
    return listener
