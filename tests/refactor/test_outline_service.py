"""The outline worker: one analysis per text, only the newest waiting text of a document
analysed, and a worker that dies replaced (issue 15 item 7). The worker is held with
SIGSTOP for as long as a test needs it busy."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from lsp_server.refactor.outline_service import OutlineService
from tests.support.processes import stop_process


@pytest.fixture
def service() -> Iterator[OutlineService]:
    outlines = OutlineService()
    yield outlines
    outlines.close()


def _started(service: OutlineService) -> int:
    """Starts the worker (one small analysis) and returns its pid."""
    service.analyse("file:///warm.py", "x = 1\n").result(timeout=60)
    assert service.pid is not None
    return service.pid


def _running(service: OutlineService) -> None:
    deadline = time.monotonic() + 30
    while service._running is None and time.monotonic() < deadline:
        time.sleep(0.01)


def test_texts_waiting_behind_a_busy_worker_are_analysed_once_and_only_the_newest(
    service: OutlineService,
) -> None:
    pid = _started(service)
    stop_process(pid)
    try:
        first = service.analyse("file:///m.py", "a = 1\n")
        _running(service)
        again = service.analyse("file:///m.py", "a = 1\n")
        older = service.analyse("file:///m.py", "a = 1\nb = 2\n")
        newest = service.analyse("file:///m.py", "a = 1\nb = 2\nc = 3\n")
        assert service.latest("file:///m.py") is None
    finally:
        os.kill(pid, signal.SIGCONT)
    assert first.result(timeout=60) is again.result(timeout=60)
    assert first.result()[0] == "a = 1\n"
    assert older.result(timeout=60) is newest.result(timeout=60)
    text, outline = newest.result()
    assert text == "a = 1\nb = 2\nc = 3\n" and outline is not None
    assert outline.facts.stored == {"a", "b", "c"}
    assert service.latest("file:///m.py") == newest.result()


def test_a_worker_that_dies_is_replaced(service: OutlineService) -> None:
    pid = _started(service)
    os.kill(pid, signal.SIGKILL)
    _text, outline = service.analyse("file:///m.py", "def f():\n    pass\n").result(timeout=60)
    assert outline is not None and outline.facts.functions == {"f"}
    assert service.pid not in (None, pid)


def test_a_text_that_does_not_parse_has_no_outline(service: OutlineService) -> None:
    assert service.analyse("file:///m.py", "def f(:\n").result(timeout=60) == ("def f(:\n", None)
