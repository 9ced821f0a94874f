"""Which test a transformation's child was running when it was stopped (at a deadline, or
over its CPU budget): a child stopped that way sends no reply, so it marks the index of each
test in a page of memory it shares with its worker before running that test."""

from __future__ import annotations

import mmap
import os

_WIDTH = 4
_NONE = -1


class RunningTest:
    """One shared page per worker process: made again after a fork (a sibling worker must
    not share its page with the first), reset before each child."""

    def __init__(self) -> None:
        self._owner = 0
        self._page: mmap.mmap | None = None

    def reset(self) -> None:
        """In the worker, before forking a child: no test running yet."""
        if self._page is None or self._owner != os.getpid():
            self._page = mmap.mmap(-1, mmap.PAGESIZE)  # anonymous: shared with children
            self._owner = os.getpid()
        self._write(_NONE)

    def mark(self, index: int) -> None:
        """In the child, before it runs the test at ``index`` of its request."""
        if self._page is not None:
            self._write(index)

    def index(self) -> int | None:
        """In the worker, after the child ended: the test it was running, if any."""
        if self._page is None:
            return None
        at = int.from_bytes(self._page[:_WIDTH], "little", signed=True)
        return None if at == _NONE else at

    def _write(self, value: int) -> None:
        assert self._page is not None
        self._page[:_WIDTH] = value.to_bytes(_WIDTH, "little", signed=True)


RUNNING = RunningTest()
