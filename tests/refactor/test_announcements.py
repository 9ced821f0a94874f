"""What waits for the announcements under way of applied refactorings (issue 15: a save
of a refactoring's files refreshed the test status before the refactoring was announced)."""

from __future__ import annotations

from lsp_server.refactor.announcements import Announcements


def test_work_waits_for_the_announcements_under_way_and_learns_if_one_was_made() -> None:
    announcements = Announcements()
    calls: list[tuple[str, bool]] = []
    announcements.after("/p", lambda made: calls.append(("idle", made)))
    assert calls == [("idle", False)]  # nothing under way: at once

    announcements.started("/p")
    announcements.started("/p")
    announcements.after("/p", lambda made: calls.append(("saved", made)))
    announcements.after("/other", lambda made: calls.append(("other", made)))
    assert calls[1:] == [("other", False)]
    announcements.ended("/p", announced=True)
    assert calls[1:] == [("other", False)]  # one still under way
    announcements.ended("/p", announced=False)
    assert calls[2:] == [("saved", True)]


def test_when_every_announcement_is_dropped_the_waiting_work_is_told_so() -> None:
    announcements = Announcements()
    calls: list[bool] = []
    announcements.started("/p")
    announcements.after("/p", calls.append)
    announcements.ended("/p", announced=False)
    assert calls == [False]
