"""The standard library's readers of the wall clock, named once for the two factoring
checks that need them: ``factoring.clock`` reports where T reads the clock during capture,
``factoring.wall_clock`` moves what every reader returns."""

from __future__ import annotations

import datetime
import time
from types import ModuleType

ALWAYS_NOW: tuple[tuple[ModuleType, str], ...] = ((time, "time"), (time, "time_ns"))
"""Functions that read the clock on every call."""

NOW_BY_DEFAULT: tuple[tuple[ModuleType, str], ...] = (
    (time, "localtime"),
    (time, "gmtime"),
    (time, "ctime"),
    (time, "asctime"),
    (time, "strftime"),
)
"""Functions that read the clock when called without a time (a call site alone does not
say whether they were)."""

NOW_CONSTRUCTORS: dict[type, tuple[str, ...]] = {
    datetime.datetime: ("now", "utcnow", "today"),
    datetime.date: ("today",),
}
"""Classes whose class methods of these names read the clock."""
