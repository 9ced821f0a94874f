"""Watches of what pytest options can change besides the code: the warning filters and the
root logger's level (the option rules of ``rts.option_rules``).

A warning filter (``filterwarnings``, ``-W``, ``PYTHONWARNINGS``) changes what happens only
to a warning that reaches the filters; the root logger's level (which ``log_cli_level`` and
``log_file_level`` lower for the whole run) only to code that reads it. Each watch counts
those events (``seen``); ``rts.option_reads`` compares the counts around each test, shared
fixture and collector.

``WarningWatch`` puts a filter of its own first in the filters pytest set up for the phase
(a copy of the process's filters with the configured and the marks' filters in front): its
message pattern counts each warning the filters consider and matches none, so the filters
behind it decide. The C and the Python warnings module both ask it, for ``warnings.warn``,
``warn_explicit`` and warnings from C code, ignored ones included (Python's default filters
are behind it too). A filter that a test puts in front of it (``pytest.warns``,
``simplefilter``) decides the warnings it matches whatever the configured filters say. A
warning already shown at the same place during the same test is not considered again (the
registry answers first), but the test was counted the first time: pytest's
``catch_warnings`` around each test resets every registry.

``RootLevelReads`` gives the root logger a class whose ``level`` counts each read: a logger
with no level of its own reads it (``getEffectiveLevel``) when it decides whether to log,
and ``caplog.set_level`` reads it to restore it. Each test starts with the loggers' caches
cleared, so a cached answer does not hide a read.

A read whose test cannot be told is ``untraceable``: off the main thread or inside a
garbage collection (when a finalizer runs depends on the tests before), and a warning while
a module runs its top level (an import: under ``error`` the import fails, and every later
importer imports it again and fails too). Every test recorded after one counts as reading.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import sys
import threading
import warnings
from collections.abc import Callable
from sys import _getframe
from types import FrameType
from typing import Any


class ReadWatch:
    """Counts reads (``seen``); ``untraceable`` once one could belong to any later test."""

    def __init__(self) -> None:
        self.seen = 0
        self.untraceable = False
        self._main_thread = threading.get_ident()
        self._collecting_garbage = False
        gc.callbacks.append(self._on_gc)

    def arm(self) -> None:
        """Called as each test, collector or shared fixture starts."""

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._on_gc)

    def saw(self) -> None:
        self.seen += 1
        if not self.untraceable and not self._traceable():
            self.untraceable = True

    def _traceable(self) -> bool:
        return not self._collecting_garbage and threading.get_ident() == self._main_thread

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        self._collecting_garbage = phase == "start"


class _CountingPattern:
    """The message pattern of ``WarningWatch``'s filter: counts, never matches."""

    __slots__ = ("_watch",)

    def __init__(self, watch: WarningWatch) -> None:
        self._watch = watch

    def match(self, text: object) -> None:
        self._watch.saw()


class WarningWatch(ReadWatch):
    """Every warning that reaches the warning filters (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._filter = ("default", _CountingPattern(self), Warning, None, 0)
        # The top levels running pytest (``python -m pytest``, an outer pytest session).
        self._outer = _top_levels(_getframe(1))

    def arm(self) -> None:
        filters: list[object] = vars(warnings)["filters"]  # typeshed: a Sequence
        if not filters or filters[0] is not self._filter:
            with contextlib.suppress(ValueError):
                filters.remove(self._filter)
            filters.insert(0, self._filter)
        # A new version of the filters empties every registry of warnings already shown:
        # a warning shown (or ignored) at a place during an earlier test reaches the
        # filters again, as in a fresh process (pytest's catch_warnings does the same,
        # unless its plugin is disabled).
        mutated: Callable[[], None] | None = getattr(warnings, "_filters_mutated", None)
        held: Callable[[], None] | None = getattr(warnings, "_filters_mutated_lock_held", None)
        if mutated is not None:
            mutated()
        elif held is not None:  # Python 3.14
            with vars(warnings)["_lock"]:
                held()
        else:  # no registry can be emptied: any earlier warning may hide a later one
            self.untraceable = True

    def _traceable(self) -> bool:
        if not super()._traceable():
            return False
        frame = _getframe(3)  # the code that warned: past saw, match and _traceable
        return not any(f not in self._outer for f in _top_levels(frame))


def _top_levels(frame: FrameType | None) -> tuple[FrameType, ...]:
    """The frames from ``frame`` outwards that run a module's top level (``exec`` in a
    namespace of its own, a doctest's say, is none)."""
    found = []
    while frame is not None:
        if frame.f_code.co_name == "<module>":
            module = sys.modules.get(frame.f_globals.get("__name__", ""))
            if module is None or vars(module) is frame.f_globals:
                found.append(frame)
        frame = frame.f_back
    return tuple(found)


class RootLevelReads(ReadWatch):
    """Every read of the root logger's level (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._root = logging.getLogger()
        self._class = type(self._root)
        self._root.__class__ = _counting_class(self._class, self.saw)

    def arm(self) -> None:
        # setLevel clears every logger's cache of its answers; the value is unchanged.
        self._root.setLevel(vars(self._root)["level"])

    def close(self) -> None:
        super().close()
        self._root.__class__ = self._class


def _counting_class(base: type[Any], on_read: Callable[[], None]) -> type[Any]:
    """``base`` with a ``level`` property calling ``on_read`` on each read."""

    def read(logger: logging.Logger) -> int:
        on_read()
        level: int = vars(logger)["level"]
        return level

    def write(logger: logging.Logger, value: int) -> None:
        vars(logger)["level"] = value

    return type(base.__name__, (base,), {"level": property(read, write)})
