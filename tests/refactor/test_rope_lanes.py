"""Two rope workers per root (``ProcessEngine``'s lanes): a request on another module never
waits behind a heavy one, each worker is told every buffer change, and a free main worker
takes every request. Real worker processes, real rope; a stopped worker (SIGSTOP) stands
for rope busy with a rename of thousands of uses for as long as the test likes."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lsp_server.jobs import Cancelled
from lsp_server.refactor import process_engine
from lsp_server.refactor.process_engine import ProcessEngine
from lsp_server.refactor.rope_thread import RopeJob
from tests.refactor.test_process_engine import edit_of, rename

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


def test_a_small_rename_is_answered_while_the_main_worker_holds_a_heavy_one(
    lanes: tuple[ProcessEngine, Path],
):
    engine, root = lanes
    big, small = root / "big.py", root / "small.py"
    main = engine.process_for(str(big)).pid
    assert main is not None
    os.kill(main, signal.SIGSTOP)
    try:
        heavy = engine.submit(rename(big, "def target", "aim"))
        # changed after the heavy request went to the main worker: both must be told
        buffer = SMALL + "kept = double(7)\n"
        engine.set_overlay(str(small), buffer)
        result = engine.submit(rename(small, "def double", "twice", buffer)).result(timeout=60)
        assert "kept = twice(7)" in edit_of(result, small).new_text
        assert not heavy.done()  # still with the stopped main worker
        assert engine.helpers[str(root.resolve())].pid not in (None, main)
    finally:
        os.kill(main, signal.SIGCONT)
    assert "def aim(x)" in edit_of(heavy.result(timeout=120), big).new_text
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
    main = engine.process_for(str(small)).pid
    assert main is not None
    os.kill(main, signal.SIGSTOP)
    try:
        held = engine.submit(rename(small, "def double", "twice"))
        result = engine.submit(rename(small, "def double", "thrice")).result(timeout=60)
        assert "def thrice(x)" in edit_of(result, small).new_text
        assert not held.done()
    finally:
        os.kill(main, signal.SIGCONT)
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
    main = engine.process_for(str(small)).pid
    helper = engine.helpers[str(root.resolve())]
    helper.start_ahead()
    stuck = helper.pid
    assert main is not None and stuck is not None
    os.kill(main, signal.SIGSTOP)
    os.kill(stuck, signal.SIGSTOP)
    try:
        # main free: A; main held up, helper free: B; both held, one each: C to the helper;
        # main holding one, the helper two: D to main
        held = [engine.submit(rename(small, "def double", name)) for name in "ABCD"]
        os.kill(main, signal.SIGCONT)
        assert "def D(x)" in edit_of(held[3].result(timeout=60), small).new_text
        assert held[0].result(timeout=60).edits
        assert not held[1].done() and not held[2].done()
    finally:
        os.kill(main, signal.SIGCONT)
        os.kill(stuck, signal.SIGCONT)
    assert all(future.result(timeout=60).edits for future in held)


def test_an_idle_helper_ends_and_the_next_request_starts_another(
    lanes: tuple[ProcessEngine, Path],
):
    """The helper holds the trees of what its renames searched: it ends when idle."""
    engine, root = lanes
    big, small = root / "big.py", root / "small.py"
    helper = engine.helpers[str(root.resolve())]
    helper.idle_exit = 0.2
    main = engine.process_for(str(big)).pid
    assert main is not None
    os.kill(main, signal.SIGSTOP)
    try:
        heavy = engine.submit(rename(big, "def target", "aim"))
        engine.compute(rename(small, "def double", "twice"))
        first = helper.pid
        assert first not in (None, main)
        _until(lambda: helper.pid is None, "the idle helper to end")
        _until(lambda: not os.path.exists(f"/proc/{first}"), "the idle helper's exit")
        result = engine.compute(rename(small, "def double", "thrice"))
        assert "def thrice(x)" in edit_of(result, small).new_text
        assert helper.pid not in (None, first, main)
    finally:
        os.kill(main, signal.SIGCONT)
    assert heavy.result(timeout=120).edits


def test_a_request_cancelled_in_a_stuck_helper_is_cancelled_and_the_helper_replaced(
    lanes: tuple[ProcessEngine, Path], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(process_engine, "CANCEL_GRACE", 0.2)
    engine, root = lanes
    big, small = root / "big.py", root / "small.py"
    main = engine.process_for(str(big)).pid
    assert main is not None
    os.kill(main, signal.SIGSTOP)
    helper = engine.helpers[str(root.resolve())]
    try:
        heavy = engine.submit(rename(big, "def target", "aim"))  # starts the helper ahead
        stuck = helper.pid
        assert stuck not in (None, main)
        os.kill(stuck, signal.SIGSTOP)
        job = RopeJob()
        cancelled = engine.submit(rename(small, "def double", "twice"), job)
        job.cancel()
        with pytest.raises(Cancelled):
            cancelled.result(timeout=60)
        result = engine.compute(rename(small, "def double", "thrice"))
        assert "def thrice(x)" in edit_of(result, small).new_text
        assert helper.pid not in (None, stuck, main)
    finally:
        os.kill(main, signal.SIGCONT)
    assert heavy.result(timeout=120).edits


def test_a_free_main_worker_takes_every_request(lanes: tuple[ProcessEngine, Path]):
    """No second worker (its memory, its cold start) while the main one keeps up."""
    engine, root = lanes
    small = root / "small.py"
    for new_name in ("twice", "thrice"):
        result = engine.compute(rename(small, "def double", new_name))
        assert f"def {new_name}(x)" in edit_of(result, small).new_text
    assert engine.helpers[str(root.resolve())].pid is None
