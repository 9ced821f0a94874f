"""Two rope workers per root (``ProcessEngine``'s lanes): a request on another module never
waits behind a heavy one, each worker is told every buffer change, and a free main worker
takes every request. Real worker processes, real rope; a stopped worker (SIGSTOP) stands
for rope busy with a rename of thousands of uses for as long as the test likes."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from lsp_server.jobs import Cancelled
from lsp_server.refactor import process_engine, rope_worker
from lsp_server.refactor.model import RefactorRequest
from lsp_server.refactor.process_engine import ProcessEngine
from lsp_server.refactor.rope_thread import RopeJob
from lsp_server.refactor.rope_worker import RopeProcess
from tests.refactor.test_process_engine import edit_of, rename
from tests.support.processes import stop_process

SMALL = "def double(x):\n    return 2 * x\n\n\nfour = double(2)\n"


@pytest.fixture
def lanes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ProcessEngine, Path]]:
    """An engine on a root holding ``big.py`` (heavy: over the lowered ``HEAVY_CHARS``) and
    ``small.py``; its main worker has answered once."""
    monkeypatch.setattr(process_engine, "HEAVY_CHARS", 2_000)
    root = tmp_path / "lanes"
    root.mkdir()
    uses = "".join(f"v{i} = target({i})\n" for i in range(150))
    (root / "big.py").write_text(f"def target(x):\n    return x\n\n\n{uses}")
    assert (root / "big.py").stat().st_size >= process_engine.HEAVY_CHARS
    (root / "small.py").write_text(SMALL)
    engine = ProcessEngine()
    engine.add_root(str(root))
    engine.prepare_rename(str(root / "small.py"), 4)
    try:
        yield engine, root
    finally:
        engine.close()


@contextlib.contextmanager
def stopped(pid: int | None) -> Iterator[int]:
    """Process ``pid`` stopped (SIGSTOP) until the block ends."""
    assert pid is not None
    stop_process(pid)
    try:
        yield pid
    finally:
        os.kill(pid, signal.SIGCONT)


def cancelled_at_once(engine: ProcessEngine, request: RefactorRequest) -> None:
    """Submit ``request``, cancel it, and see it answered as cancelled."""
    job = RopeJob()
    future = engine.submit(request, job)
    job.cancel()
    with pytest.raises(Cancelled):
        future.result(timeout=60)


@contextlib.contextmanager
def main_stuck_in_a_heavy_rename(
    engine: ProcessEngine, root: Path
) -> Iterator[tuple[int, RopeProcess, Future[Any]]]:
    """The main worker's pid, the helper (started ahead) and the heavy rename the stopped
    main worker holds; once the main worker goes on, the rename is answered."""
    big = root / "big.py"
    with stopped(engine.process_for(str(big)).pid) as main:
        heavy = engine.submit(rename(big, "def target", "aim"))
        helper = engine.helpers[str(root.resolve())]
        _until(lambda: helper.pid is not None, "the helper started ahead (off the caller)")
        yield main, helper, heavy
    assert "def aim(x)" in edit_of(heavy.result(timeout=120), big).new_text


def test_a_small_rename_is_answered_while_the_main_worker_holds_a_heavy_one(
    lanes: tuple[ProcessEngine, Path],
):
    engine, root = lanes
    small = root / "small.py"
    with main_stuck_in_a_heavy_rename(engine, root) as (main, helper, heavy):
        # changed after the heavy request went to the main worker: both must be told
        buffer = SMALL + "kept = double(7)\n"
        engine.set_overlay(str(small), buffer)
        result = engine.submit(rename(small, "def double", "twice", buffer)).result(timeout=60)
        assert "kept = twice(7)" in edit_of(result, small).new_text
        assert not heavy.done()  # still with the stopped main worker
        assert helper.pid not in (None, main)
    # the main worker, free again, takes the next request, with the buffer it missed
    again = engine.submit(rename(small, "def double", "thrice", buffer)).result(timeout=60)
    assert "kept = thrice(7)" in edit_of(again, small).new_text
    assert engine.process_for(str(small)).pid == main


def test_a_request_held_for_long_sends_the_next_one_to_the_helper(
    lanes: tuple[ProcessEngine, Path], monkeypatch: pytest.MonkeyPatch
):
    """A short module's rename can be long too (a name used in every file): once the main
    worker has held a request for ``HELD_UP_AFTER`` seconds, the next one goes to the
    helper (here at once)."""
    monkeypatch.setattr(process_engine, "HELD_UP_AFTER", 0.0)
    engine, root = lanes
    small = root / "small.py"
    with stopped(engine.process_for(str(small)).pid):
        held = engine.submit(rename(small, "def double", "twice"))
        result = engine.submit(rename(small, "def double", "thrice")).result(timeout=60)
        assert "def thrice(x)" in edit_of(result, small).new_text
        assert not held.done()
    assert "def twice(x)" in edit_of(held.result(timeout=60), small).new_text


def _until(check: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_when_both_workers_are_held_up_a_request_goes_behind_the_fewer(
    lanes: tuple[ProcessEngine, Path], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(process_engine, "HELD_UP_AFTER", 0.0)
    engine, root = lanes
    small = root / "small.py"
    helper = engine.helpers[str(root.resolve())]
    helper.start_ahead()
    with stopped(helper.pid):
        with stopped(engine.process_for(str(small)).pid):
            # main free: A; main held up, helper free: B; both held, one each: C to the
            # helper; main holding one, the helper two: D to main
            held = [engine.submit(rename(small, "def double", name)) for name in "ABCD"]
        # the main worker goes on, the helper does not
        assert "def D(x)" in edit_of(held[3].result(timeout=60), small).new_text
        assert held[0].result(timeout=60).edits
        assert not held[1].done() and not held[2].done()
    assert all(future.result(timeout=60).edits for future in held)


def test_an_idle_helper_ends_and_the_next_request_starts_another(
    lanes: tuple[ProcessEngine, Path],
):
    """The helper holds the trees of what its renames searched: it ends when idle."""
    engine, root = lanes
    small = root / "small.py"
    engine.helpers[str(root.resolve())].idle_exit = 0.2
    with main_stuck_in_a_heavy_rename(engine, root) as (main, helper, _):
        engine.compute(rename(small, "def double", "twice"))
        first = helper.pid
        assert first not in (None, main)
        _until(lambda: helper.pid is None, "the idle helper to end")
        _until(lambda: not os.path.exists(f"/proc/{first}"), "the idle helper's exit")
        result = engine.compute(rename(small, "def double", "thrice"))
        assert "def thrice(x)" in edit_of(result, small).new_text
        assert helper.pid not in (None, first, main)


def test_a_request_cancelled_in_a_stuck_helper_is_cancelled_and_the_helper_replaced(
    lanes: tuple[ProcessEngine, Path], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(rope_worker, "CANCEL_GRACE", 0.2)
    engine, root = lanes
    small = root / "small.py"
    with main_stuck_in_a_heavy_rename(engine, root) as (main, helper, _):
        stuck = helper.pid  # started ahead with the heavy rename
        assert stuck not in (None, main)
        stop_process(stuck)
        cancelled_at_once(engine, rename(small, "def double", "twice"))
        result = engine.compute(rename(small, "def double", "thrice"))
        assert "def thrice(x)" in edit_of(result, small).new_text
        assert helper.pid not in (None, stuck, main)


def test_a_free_main_worker_takes_every_request(lanes: tuple[ProcessEngine, Path]):
    """No second worker (its memory, its cold start) while the main one keeps up."""
    engine, root = lanes
    small = root / "small.py"
    for new_name in ("twice", "thrice"):
        result = engine.compute(rename(small, "def double", new_name))
        assert f"def {new_name}(x)" in edit_of(result, small).new_text
    assert engine.helpers[str(root.resolve())].pid is None


def test_a_heavy_request_does_not_wait_for_the_helper_to_start(
    lanes: tuple[ProcessEngine, Path],
):
    """A heavy request starts the helper ahead (to be up when the next request needs it).
    That start (a process forked and executed: 4-24 ms at load 17) ran on the caller's
    thread, the server's message loop, holding the helper's lock that every next
    request's choice of lane takes (issue 15's code actions waiting on the loop)."""
    engine, root = lanes
    helper = engine.helpers[str(root.resolve())]
    may_start = threading.Event()
    real_start = helper._start

    def slow_start(at: str) -> tuple[Any, bool]:
        may_start.wait(timeout=120)
        return real_start(at)

    helper._start = slow_start
    submitted: list[Future[Any]] = []
    try:
        caller = threading.Thread(
            target=lambda: submitted.append(engine.submit(rename(root / "big.py", "def t", "a")))
        )
        caller.start()
        caller.join(timeout=30)
        assert submitted, "the heavy request waited for the helper's start"
        assert not helper.held_up(0.0)  # the lane choice of a next request does not wait
    finally:
        may_start.set()
    assert "def a(x)" in edit_of(submitted[0].result(timeout=120), root / "big.py").new_text
    _until(lambda: helper.pid is not None, "the helper started ahead")
