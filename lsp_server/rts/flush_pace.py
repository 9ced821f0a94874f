"""When the recorder writes the test results it buffers: in one transaction per batch.

A batch closes after ``tests`` results or ``seconds`` after the last write, whichever comes
first; a write lost with its buffer (kill -9) is safe, those tests keep their previous
record and are selected again. The time bound stretches to ``share`` times what the last
write took, so that writing stays a small part of the run: each write has a fixed cost (the
files' snapshots, the units, the functions that ran) and on a loaded machine both it and
the tests slow down, so the bound came ever sooner. Under a load of 20 on two cores,
jinja's 909 tests were written in 252 batches, 11 s of CPU, against 2 s in 11 batches.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class FlushPace:
    tests: int = 100
    seconds: float = 1.0
    share: float = 20.0
    last: float = field(default_factory=time.monotonic)  # when the last write ended
    interval: float = 0.0  # the time bound now: ``seconds`` at least

    def __post_init__(self) -> None:
        self.interval = self.seconds

    def due(self, pending: int, now: float) -> bool:
        """Whether ``pending`` buffered results are to be written at ``now``."""
        return pending >= self.tests or now - self.last > self.interval

    def wrote(self, started: float, ended: float) -> None:
        """A write ran from ``started`` to ``ended`` (``time.monotonic``)."""
        self.last = ended
        self.interval = max(self.seconds, self.share * (ended - started))
