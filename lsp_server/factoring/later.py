"""Does a factored test still pass long after its capture? E answers from the capture's
moment while T reads the clock of the replay's: a test that compares the two (dunamai's
tests check that git's commit date lies within a minute of ``datetime.utcnow()``) passes
right after the capture and fails a minute later. So every kept factored test is replayed
once more with the wall clock moved forward (``wall_clock``), and one that fails there is
refused, or (``reks factor --clock-in-e``, the user's consent) replays T's clock from the
capture's moment."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from lsp_server.factoring import emit, transcript
from lsp_server.factoring.runner import run_pytest
from lsp_server.jobs import Job
from lsp_server.project import Project

if TYPE_CHECKING:
    from lsp_server.factoring.factor import FactorResult


def failure(entry: dict[str, Any]) -> str:
    """What went wrong in a factored test's run: its divergence, else pytest's message."""
    return str(entry.get("divergence") or entry.get("message", "") or "not collected")


FAILS_LATER = "fails_later"
"""The ``details`` key set on a result refused because its factored test fails with the
clock moved forward, where replaying T's clock too (``clock_in_e``) may keep it."""

Kept: TypeAlias = "list[tuple[FactorResult, emit.FactoredFiles]]"
"""Factored tests kept so far, each with its files."""


def check_later(project: Project, kept: Kept, job: Job, clock_in_e: bool) -> None:
    """Replay the ``kept`` factored tests once more with the wall clock moved forward
    (``wall_clock.SHIFT_S``): E answers from the capture's moment, so a test that compares
    T's clock with E's answers (dunamai's: git's commit date within a minute of now) fails
    there, as it would on unchanged code once time passed. Such a test is refused, or with
    ``clock_in_e`` its transcript replays T's clock from the capture's moment, and it is
    kept when it passes the moved clock that way. A test whose replay starts a child
    process is not judged (the child's clock does not move) and keeps a warning."""
    from lsp_server.factoring.wall_clock import SHIFT_S

    if not kept:
        return
    job.report(3, 4, "replaying the factored tests with the clock moved forward")
    failing, with_children = _failing_later(project, kept, job)
    for (result, _), why in with_children.values():
        result.warnings.append(
            f"not checked with the clock moved forward: its replay starts child processes, "
            f"which keep the real clock, and failed with the move ({why[:200]})"
        )
    if clock_in_e and failing:
        for (_, written), _ in failing.values():
            transcript.pin_clock(written.transcript)
        still, _ = _failing_later(project, [pair for pair, _ in failing.values()], job)
        for nodeid in [n for n in failing if n not in still]:
            (result, _), _ = failing.pop(nodeid)
            result.details["t_clock"] = transcript.CLOCK_PINNED
            result.warnings.append(
                "T's wall clock is replayed from the capture's moment (--clock-in-e): with the "
                "real clock the factored test fails once time has passed"
            )
        failing.update(still)
    days = SHIFT_S / 86400
    for (result, files), why in failing.values():
        result.status, result.factored_test, result.transcript = "refused", None, None
        result.divergence = why
        result.details[FAILS_LATER] = not clock_in_e
        result.reason = (
            f"the factored test fails when replayed with the wall clock {days:.0f} days later: "
            "E's answers are the capture's, T's clock is not, so it would fail on unchanged "
            f"code once time passed (T compares the time now with a recorded value?): {why}"
            + ("" if clock_in_e else "; --clock-in-e replays T's clock from the capture's moment")
        )
        files.remove()


Failing: TypeAlias = "dict[str, tuple[tuple[FactorResult, emit.FactoredFiles], str]]"
"""Test -> (its result and files, what failed)."""


def _failing_later(project: Project, kept: Kept, job: Job) -> tuple[Failing, Failing]:
    """The tests whose factored test fails with the clock moved forward, each with its
    result, files and what failed: those whose replay started no child process, and those
    whose replay did (a child keeps the real clock: the move itself may be what failed)."""
    from lsp_server.factoring.wall_clock import SHIFT_S

    names = [result.factored_test or "" for result, _ in kept]
    output = run_pytest(project, names, {"clock_shift_s": SHIFT_S}, job)
    replayed, children = output["tests"], output.get("children", {})
    failing: Failing = {}
    with_children: Failing = {}
    for pair, name in zip(kept, names, strict=True):
        entry = replayed.get(name, {})
        if entry.get("outcome") != "passed":
            found = with_children if children.get(name) else failing
            found[pair[0].test] = (pair, failure(entry))
    return failing, with_children
