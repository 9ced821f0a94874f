"""The channel's ends are closed once, whoever closes them: a rope worker's reader thread
and the engine may both close a dead worker's channel at the same moment, and a second
``close`` of a descriptor number closes whatever file was given that number meanwhile."""

from __future__ import annotations

import os
import threading

import pytest

from lsp_server.sandbox.wire import Channel


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
    errors: list[BaseException] = []

    def first() -> None:
        try:
            channel.close()
        except BaseException as exc:  # the test reports what the thread hit
            errors.append(exc)

    thread = threading.Thread(target=first)
    thread.start()
    assert inside.wait(10)
    try:
        channel.close()
    finally:
        proceed.set()
        thread.join(10)
    assert not errors, errors
    assert closes.count(write_fd) == 1 and closes.count(read_fd) == 1
