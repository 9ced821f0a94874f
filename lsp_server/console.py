"""Terminal output for the CLI: a progress bar on stderr that stays quiet when not a TTY."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from lsp_server.jobs import Job


class ProgressBar:
    """Draws ``[#####.....] 12/40 message`` on one line; redraws at most 10 times a second."""

    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self._last_draw = 0.0
        self._drawn = False
        self.enabled = self.stream.isatty()

    def update(self, done: int, total: int | None = None, message: str = "") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last_draw < 0.1 and (total is None or done < total):
            return
        self._last_draw = now
        if total:
            filled = int(self.width * min(done, total) / total)
            bar = "#" * filled + "." * (self.width - filled)
            text = f"{self.label} [{bar}] {done}/{total} {message}"
        else:
            text = f"{self.label} {done} {message}"
        self.stream.write("\r\x1b[2K" + text[:200])
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()

    def job(self) -> Job:
        return Job(on_progress=self.update)

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
