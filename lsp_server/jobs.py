"""Progress reporting and cancellation shared by every long job.

Packages take a ``Job`` so that the same code reports to a CLI progress bar or to LSP
``$/progress`` and stops when the user cancels, without knowing which.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

ProgressCallback = Callable[[int, "int | None", str], None]
"""``(done, total, message)``; ``total`` is None when unknown."""


class Cancelled(Exception):
    """The user cancelled the job."""


def _ignore_progress(done: int, total: int | None, message: str) -> None:
    return None


@dataclass
class Job:
    """Handle a long operation receives: where to report progress, and whether to stop."""

    on_progress: ProgressCallback = _ignore_progress
    _cancelled: threading.Event = field(default_factory=threading.Event)
    _on_cancel: list[Callable[[], None]] = field(default_factory=list)
    _hooks_lock: threading.Lock = field(default_factory=threading.Lock)

    def report(self, done: int, total: int | None = None, message: str = "") -> None:
        self.on_progress(done, total, message)

    def cancel(self) -> None:
        with self._hooks_lock:
            self._cancelled.set()
            hooks, self._on_cancel = self._on_cancel, []
        for hook in hooks:
            hook()

    def when_cancelled(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` (once, on the cancelling thread) when the job is cancelled; now
        when it already is."""
        with self._hooks_lock:
            if not self._cancelled.is_set():
                self._on_cancel.append(hook)
                return
        hook()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def check(self) -> None:
        """Raise ``Cancelled`` if the job was cancelled; call between units of work."""
        if self._cancelled.is_set():
            raise Cancelled()
