"""The channel's ends are closed once, whoever closes them: a rope worker's reader thread
and the engine may both close a dead worker's channel at the same moment, and a second
``close`` of a descriptor number closes whatever file was given that number meanwhile."""

from __future__ import annotations

import os
import select
import threading
from collections.abc import Callable

import pytest

from lsp_server.sandbox.wire import Channel, ChannelClosed


def _on_a_thread(call: Callable[[], object]) -> tuple[threading.Thread, list[BaseException]]:
    """``call`` running on a thread, and the list that receives what it raises."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # the test reports what the thread hit
            raised.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, raised


def test_two_threads_closing_one_channel_close_each_descriptor_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read_fd, write_fd = os.pipe()
    channel = Channel(read_fd, write_fd)
    real_close = os.close
    closes: list[int] = []
    inside, proceed = threading.Event(), threading.Event()

    def held_close(fd: int) -> None:
        closes.append(fd)
        if fd == write_fd and len([c for c in closes if c == write_fd]) == 1:
            inside.set()  # the first closer is between its check and the close
            proceed.wait(10)
        real_close(fd)

    monkeypatch.setattr(os, "close", held_close)
    thread, errors = _on_a_thread(channel.close)
    assert inside.wait(10)
    try:
        channel.close()
    finally:
        proceed.set()
        thread.join(10)
    assert not errors, errors
    assert closes.count(write_fd) == 1 and closes.count(read_fd) == 1


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_reading_a_closed_channel_is_channel_closed(timeout: float | None) -> None:
    """A worker's reader thread may read once more after its owner closed the channel:
    that read is the end of the channel, like the peer's exit (not an OSError)."""
    read_fd, write_fd = os.pipe()
    channel = Channel(read_fd, write_fd)
    channel.close()
    with pytest.raises(ChannelClosed):
        channel.receive(timeout)


def test_a_read_racing_the_close_of_its_channel_is_channel_closed() -> None:
    read_fd, write_fd = os.pipe()
    channel = Channel(read_fd, write_fd)
    thread, outcome = _on_a_thread(channel.receive)
    # the reader waits in os.read; closing the write end wakes it with end-of-file,
    # closing the read end after it must not turn what it reads next into EBADF
    channel.close()
    thread.join(10)
    assert not thread.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], ChannelClosed), outcome


def _pipe_ending_at(fd: int, end: int) -> tuple[tuple[int, int], list[int]]:
    """A new pipe whose end ``end`` (0 read, 1 write) got the descriptor number ``fd``,
    which was just freed, and the descriptors opened on the way, to close."""
    spare: list[int] = []
    for _ in range(8):
        pipe = os.pipe()
        if pipe[end] == fd:
            return pipe, spare
        spare.extend(pipe)
    raise AssertionError(f"descriptor {fd} was not given out again")


class _EncodedSlowly(dict):  # type: ignore[type-arg]
    """A JSON object whose encoding waits for ``proceed`` (json calls ``items``)."""

    def __init__(self, encoding: threading.Event, proceed: threading.Event) -> None:
        super().__init__(name="value")
        self.encoding, self.proceed = encoding, proceed

    def items(self):  # type: ignore[no-untyped-def]
        self.encoding.set()
        assert self.proceed.wait(10)
        return super().items()


def test_a_send_racing_the_close_never_writes_to_the_next_owner_of_its_descriptor() -> None:
    """A rope worker's outbox thread may still send to a worker whose reader has just
    closed its channel, and the next worker's pipe may get the freed descriptor number:
    that message must not reach the next worker (it read it as its first message, which
    names its root: a crash at start, KeyError: 'root')."""
    from_peer, to_peer = os.pipe(), os.pipe()  # the freed numbers make one new pipe
    channel = Channel(from_peer[0], to_peer[1])
    encoding, proceed = threading.Event(), threading.Event()
    thread, _ = _on_a_thread(lambda: channel.send({"message": _EncodedSlowly(encoding, proceed)}))
    assert encoding.wait(10)
    channel.close()
    (next_read, next_write), spare = _pipe_ending_at(to_peer[1], end=1)
    try:
        proceed.set()
        thread.join(10)
        assert not thread.is_alive()
        assert not select.select([next_read], [], [], 0.2)[0], "the next pipe got the frame"
    finally:
        for fd in (next_read, next_write, *spare, to_peer[0], from_peer[1]):
            os.close(fd)
