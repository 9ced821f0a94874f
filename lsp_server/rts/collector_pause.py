"""The garbage collector off while reks does its own work between the project's code.

An automatic collection starts once allocations pass a threshold, wherever they happen,
and visits every object of the process: the project's, pytest's and reks's. reks's own
work (before and after each test: taking what it ran, attributing its units and writing
them; analysing a source file) allocates
and drops thousands of sets and nodes per test, almost none of them in reference cycles:
they go with their last reference, yet each time they passed the threshold a collection
visited the whole heap. On jinja that was half of recording's collections (jinja: 1.5 s
of collections recording a first run, 0.16 s plain).

Nothing of the project runs meanwhile, and what an automatic collection runs belongs to
no test anyway (``rts.collector_runs``): the project's garbage is collected at the next
automatic collection instead, as it would have been had reks allocated less. A project
that turned the collector off keeps it off.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic collection within (``gc.collect()`` still collects); the collector is
    on again afterwards only if it was before."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
