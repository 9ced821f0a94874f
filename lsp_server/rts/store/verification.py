"""The verification log of what REKS skipped: per trusted task, the tests it skipped, and
whether a run on code that includes the task has settled each (passed, or failed: an
alarm), plus the evidence an alarm needs (where the task was asked for, its files' text
before and after).

A test counts as verified by *any* later ``pytest --reks`` session that ran it: the
session settles, at its end, the pending tests it recorded for tasks logged before it
began (``settle_session``).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lsp_server.rts.store.writes import StoreWrites

PENDING = "pending"
PASSED = "passed"
FAILED = "failed"
_FAILING_OUTCOMES = ("failed", "error")


@dataclass(frozen=True)
class SkippedTest:
    """One test a trusted task made REKS skip, with the task and its verification state."""

    __test__ = False
    task_id: int
    nodeid: str
    state: str
    session_id: int | None
    duration: float
    """The test's last recorded duration (0 when the store has none)."""
    task_kind: str
    task_description: str
    task_applied: float
    after_hand_edits: bool = False
    """It failed in a session that also ran it because of edits made by hand."""


@dataclass(frozen=True)
class TaskEvidence:
    """Where a task was asked for and the text of each file it changed."""

    task_id: int
    target: dict[str, Any] | None
    files: dict[str, tuple[str | None, str | None]]
    """Root-relative path -> (text before the task, text after it; None: no such file)."""


class StoreVerification(StoreWrites):
    """The verification half of ``DependencyStore`` (which opens ``_conn``)."""

    _conn: sqlite3.Connection

    def remember_skipped(
        self,
        task_id: int,
        nodeids: Iterable[str],
        target: Mapping[str, object] | None,
        files: Mapping[str, tuple[str | None, str | None]],
    ) -> None:
        """Log the tests ``task_id`` skipped as pending, with the task's evidence."""
        with self.transaction():
            self._conn.executemany(
                "INSERT OR IGNORE INTO skipped_tests (task_id, nodeid) VALUES (?,?)",
                [(task_id, nodeid) for nodeid in nodeids],
            )
            self._conn.execute(
                "INSERT OR REPLACE INTO task_evidence VALUES (?,?,?)",
                (
                    task_id,
                    None if target is None else json.dumps(dict(target)),
                    json.dumps({path: list(texts) for path, texts in files.items()}),
                ),
            )

    def settle_session(self, session_id: int, edited: Collection[str] = ()) -> list[SkippedTest]:
        """Settle the skipped tests that session ``session_id`` recorded, for tasks logged
        before it began: pending (or failed before) -> passed or failed; a verified test
        stays verified (a later failure is a later edit's). ``edited``: tests the session
        ran because of edits made by hand; their failure may be the edit's, so the task's
        shape is not learnt from it (``learnt`` 2). The newly settled ones, oldest task
        first."""
        with self.transaction():
            rows = self._conn.execute(
                "SELECT s.task_id, s.nodeid, t.outcome, s.state FROM skipped_tests s"
                " JOIN reks_tasks k ON k.id=s.task_id JOIN tests t ON t.nodeid=s.nodeid"
                " WHERE t.session_id=? AND k.after_session < ? AND s.state != ?"
                " AND (s.session_id IS NULL OR s.session_id != ?)",
                (session_id, session_id, PASSED, session_id),
            ).fetchall()
            settled: list[tuple[str, int, float, int, int, str]] = []
            now = time.time()
            for task_id, nodeid, outcome, old_state in rows:
                state = FAILED if outcome in _FAILING_OUTCOMES else PASSED
                if outcome == "skipped" or state == old_state:
                    continue  # a pytest skip proves nothing; a failure stays one alarm
                learnt = 2 if state == FAILED and nodeid in edited else 0
                settled.append((state, session_id, now, learnt, task_id, nodeid))
            self._conn.executemany(
                "UPDATE skipped_tests SET state=?, session_id=?, settled=?, learnt=?"
                " WHERE task_id=? AND nodeid=?",
                settled,
            )
        keys = {(task_id, nodeid) for *_, task_id, nodeid in settled}
        return [s for s in self.skipped_tests() if (s.task_id, s.nodeid) in keys]

    def skipped_tests(self, states: Iterable[str] | None = None) -> list[SkippedTest]:
        """The logged skipped tests (in ``states``, default all), oldest task first."""
        rows = self._conn.execute(
            "SELECT s.task_id, s.nodeid, s.state, s.session_id, coalesce(t.duration, 0),"
            " k.kind, k.description, k.applied, s.learnt = 2 FROM skipped_tests s"
            " JOIN reks_tasks k ON k.id=s.task_id LEFT JOIN tests t ON t.nodeid=s.nodeid"
            " ORDER BY s.task_id, s.nodeid"
        ).fetchall()
        wanted = None if states is None else set(states)
        out = []
        for task_id, nodeid, state, session, duration, kind, text, applied, edited in rows:
            if wanted is None or state in wanted:
                out.append(
                    SkippedTest(
                        task_id, nodeid, state, session, duration, kind, text, applied, bool(edited)
                    )
                )
        return out

    def pending_tests(self) -> dict[str, float]:
        """Node id -> last duration of every test still waiting for verification (a test
        skipped by several tasks is listed once), in the order to run them: oldest task
        first, then fastest first."""
        out: dict[str, float] = {}
        for skipped in sorted(
            self.skipped_tests([PENDING]), key=lambda s: (s.task_id, s.duration, s.nodeid)
        ):
            out.setdefault(skipped.nodeid, skipped.duration)
        return out

    def task_evidence(self, task_id: int) -> TaskEvidence | None:
        row = self._conn.execute(
            "SELECT target, files FROM task_evidence WHERE task_id=?", (task_id,)
        ).fetchone()
        if row is None:
            return None
        files = {path: (texts[0], texts[1]) for path, texts in json.loads(row[1]).items()}
        return TaskEvidence(task_id, None if row[0] is None else json.loads(row[0]), files)

    def unlearnt_failures(self) -> list[SkippedTest]:
        """Failed verifications whose task's shape is not yet a known failure."""
        keys = set(
            self._conn.execute(
                "SELECT task_id, nodeid FROM skipped_tests WHERE state=? AND learnt=0", (FAILED,)
            ).fetchall()
        )
        return [s for s in self.skipped_tests([FAILED]) if (s.task_id, s.nodeid) in keys]

    def mark_learnt(self, task_id: int) -> None:
        with self.transaction():
            self._conn.execute(
                "UPDATE skipped_tests SET learnt=1 WHERE task_id=? AND state=?", (task_id, FAILED)
            )

    def session_in_progress(self, max_age: float = 3600.0) -> bool:
        """Whether a test session began less than ``max_age`` seconds ago and has not
        finished (an older unfinished one was killed)."""
        row = self._conn.execute(
            "SELECT 1 FROM sessions WHERE finished IS NULL AND started > ? LIMIT 1",
            (time.time() - max_age,),
        ).fetchone()
        return row is not None
