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


def test_the_worker_is_started_ahead_of_the_first_text() -> None:
    """A document's first code actions come as it opens: a worker still starting then
    left each of them to be outlined in the server (issue 15's opening burst)."""
    service = OutlineService()
    try:
        service.start_ahead()
        deadline = time.monotonic() + 60
        while service.pid is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert service.pid is not None
        pid = service.pid
        assert service.analyse("file:///m.py", "a = 1\n").result(timeout=60)[1] is not None
        assert service.pid == pid  # the text went to the worker started ahead
    finally:
        service.close()


def test_the_shortest_waiting_text_is_analysed_first(service: OutlineService) -> None:
    pid = _started(service)
    long_text = "".join(f"v{i} = {i}\n" for i in range(2000))
    finished: list[str] = []
    stop_process(pid)
    try:
        busy = service.analyse("file:///busy.py", "b = 1\n")
        _running(service)
        long = service.analyse("file:///long.py", long_text)
        short = service.analyse("file:///short.py", "s = 1\n")
        long.add_done_callback(lambda _: finished.append("long"))
        short.add_done_callback(lambda _: finished.append("short"))
    finally:
        os.kill(pid, signal.SIGCONT)
    busy.result(timeout=60)
    long.result(timeout=60)
    short.result(timeout=60)
    assert finished == ["short", "long"]


def test_an_outline_made_here_is_made_once_for_the_code_actions_asking_at_once(
    service: OutlineService,
) -> None:
    text = "def f():\n    return 1\n"
    first = service.made_here("file:///m.py", text)
    again = service.made_here("file:///m.py", text)  # while it is made, or after
    assert again.result(timeout=60) is first.result(timeout=60)
    made, outline = first.result()
    assert made == text and outline is not None and outline.facts.functions == {"f"}
    assert service.latest("file:///m.py") == first.result()


def _long_module(edits: int) -> str:
    return "".join(f"v{i} = {i}\n" for i in range(3000)) + "".join(
        f"z{i} = {i}\n" for i in range(edits)
    )


def test_texts_typed_in_quick_succession_are_not_each_outlined() -> None:
    """Each keystroke in a long module sent its text to the worker, which never rested
    while the user typed (a 30,000-line module: 320 ms an outline). A typed text waits
    for the document to be quiet; asked for exactly (a code action needing it), the
    newest text is outlined at once, and only it."""
    service = OutlineService(quiet=60.0, longest_wait=60.0)
    try:
        service.analyse("file:///long.py", _long_module(0)).result(timeout=60)  # opened
        made = service.made
        for edits in range(1, 30):
            service.typed("file:///long.py", _long_module(edits))
        newest = _long_module(30)
        text, outline = service.analyse("file:///long.py", newest).result(timeout=60)
        assert text == newest and outline is not None and "z29" in outline.facts.stored
        assert service.made == made + 1
    finally:
        service.close()


def test_a_typed_text_is_outlined_once_the_document_is_quiet() -> None:
    service = OutlineService(quiet=0.05, longest_wait=60.0)
    try:
        service.typed("file:///long.py", "a = 1\n")
        service.typed("file:///long.py", "a = 1\nb = 2\n")
        deadline = time.monotonic() + 60
        while service.latest("file:///long.py") is None and time.monotonic() < deadline:
            time.sleep(0.01)
        text, outline = service.latest("file:///long.py") or ("", None)
        assert text == "a = 1\nb = 2\n" and outline is not None
        assert outline.facts.stored == {"a", "b"}
    finally:
        service.close()


def test_typing_without_a_pause_is_outlined_at_the_longest_wait() -> None:
    """A document typed in without pause is outlined now and then all the same: the
    code actions meanwhile guess from an outline that grows ever older otherwise."""
    service = OutlineService(quiet=60.0, longest_wait=0.05)
    try:
        service.typed("file:///long.py", "a = 1\n")
        deadline = time.monotonic() + 60
        while service.latest("file:///long.py") is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert service.latest("file:///long.py") is not None
    finally:
        service.close()


def test_a_short_text_the_worker_outlines_in_time_is_not_outlined_again_here(
    service: OutlineService,
) -> None:
    """The code actions of an editor's opening burst on short documents each outlined
    their document on the server's thread while the worker was outlining the same text
    (issue 15's opening burst: the server's outline thread held the interpreter lock, and
    the code actions all finished together). The worker's outline is taken when it comes
    within the grace; only a worker busy or stuck for longer leaves it to the server."""
    _started(service)
    text = "def f():\n    return 1\n"
    made, outline = service.outline_short("file:///m.py", text, grace=60).result(timeout=60)
    assert made == text and outline is not None and outline.facts.functions == {"f"}
    assert service.made_in_server == 0


def test_a_short_text_is_outlined_here_when_the_worker_is_held_up(
    service: OutlineService,
) -> None:
    pid = _started(service)
    text = "def g():\n    return 2\n"
    stop_process(pid)
    try:
        made, outline = service.outline_short("file:///m.py", text, grace=0.01).result(60)
        assert made == text and outline is not None and outline.facts.functions == {"g"}
        assert service.made_in_server == 1
    finally:
        os.kill(pid, signal.SIGCONT)


def test_a_short_text_behind_a_long_one_is_outlined_here_at_once(service: OutlineService) -> None:
    """An editor opens its long module with its short ones: the worker outlines the long
    one first (seconds on a loaded machine), and a short document's code action waiting
    the grace for the worker only added the grace to the outline made here after all."""
    pid = _started(service)
    stop_process(pid)
    try:
        service.analyse("file:///long.py", _long_module(0))
        _running(service)
        text = "def h():\n    return 3\n"
        made, outline = service.outline_short("file:///m.py", text, grace=60).result(30)
        assert made == text and outline is not None and outline.facts.functions == {"h"}
        assert service.made_in_server == 1
    finally:
        os.kill(pid, signal.SIGCONT)
