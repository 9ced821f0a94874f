"""What ran inside each call of a project's cached function (Python 3.12+).

A test that hits a cache depends on the code that computed the value it got (``rts.cache_hits``).
That code is what ran inside the cached call that filled the cache, not the rest of the test
that happened to call it first: on tomli, ``test_deepcopy`` hit the time-zone cache another
test filled while parsing a whole document, and every edit of the parser selected it. The
value can depend on nothing else but the arguments (the cache key, equal for the hit) and
the state the call read, which only code that ran inside the call can read.

A ``sys.monitoring`` tool of its own sees PY_START and PY_RETURN on the cached functions'
code objects only (a start is a miss: a hit never runs the code), and PY_UNWIND (a global
event only) while such a call is under way; each start opens a span on the tracer
(``CodeTracer.open_span``), the return or unwind of the same frame closes it.

Only a value nothing can change once made (numbers, strings, dates, tuples of them:
``frozen``) depends on its call alone: code running after the call may change a list or an
instance it returned (jinja caches whole environments). For the others, as where a span
cannot be told, the code goes *coarse* for the test, and the caller counts the whole test
as the filler, as before. A span is not told for a call from another thread, a span cut by
the tracer's ``take``, past ``SPANS_PER_TEST`` spans in one test (each restarts events), a
generator or coroutine (its frame returns at each ``yield``), with no free tool id, or
before Python 3.12.
"""

from __future__ import annotations

import datetime
import re
import sys
import threading
from decimal import Decimal
from fractions import Fraction
from sys import _getframe
from types import CodeType, FrameType
from typing import Any

from lsp_server.rts.identity import identity
from lsp_server.rts.monitoring_tools import claim_call_tool, release_call_tool
from lsp_server.rts.tracing import CodeSet, CodeTracer, SpanToken

_MON: Any = getattr(sys, "monitoring", None)

SPANS_PER_TEST = 64
"""Spans opened per test at most: each one restarts every project code object's events."""

# Values no code can change once made (exact types: a subclass may carry a ``__dict__``).
_FROZEN_TYPES = frozenset(
    [type(None), bool, int, float, complex, str, bytes, range, re.Pattern, Decimal, Fraction]
) | {datetime.date, datetime.datetime, datetime.time, datetime.timedelta, datetime.timezone}
_FROZEN_DEPTH, _FROZEN_ITEMS = 4, 1000  # a bigger tuple is read as changeable: cheap to tell
_SUSPENDING = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable and async generator


class CachedCalls:
    """Spans of the watched code objects' calls, per code object, since the last ``take``."""

    def __init__(self, tracer: CodeTracer) -> None:
        self._tracer = tracer
        self._tool: int | None = None
        self._unavailable = not tracer.spans or _MON is None
        self._watched: set[int] = set()
        self._thread = threading.get_ident()
        # One entry per call under way: (its frame, code identity, its span's token, or None
        # where the span is not told).
        self._open: list[tuple[FrameType, int, SpanToken | None]] = []
        self._spans: dict[int, CodeSet] = {}
        self._coarse: set[int] = set()
        self._opened = 0

    def watch(self, code: CodeType) -> None:
        """Tell the spans of ``code``'s calls from now on (where they can be told)."""
        key = identity(code)
        if key in self._watched or self._unavailable or code.co_flags & _SUSPENDING:
            return
        if self._tool is None and not self._start():
            self._unavailable = True
            return
        self._watched.add(key)
        events = _MON.events
        _MON.set_local_events(self._tool, code, events.PY_START | events.PY_RETURN)

    def take(self) -> dict[int, CodeSet | None]:
        """Since the last call, per watched code object (by identity) that ran: what ran
        inside its calls, or None where some call's span was not told."""
        found: dict[int, CodeSet | None] = dict(self._spans)
        found.update((key, None) for key in self._coarse)
        self._spans, self._coarse, self._opened = {}, set(), 0
        return found

    def stop(self) -> None:
        if self._tool is None:
            return
        release_call_tool(self._tool)
        self._tool = None
        self._unavailable = True

    def _start(self) -> bool:
        self._tool = claim_call_tool("reks-cached-calls", self)
        return self._tool is not None

    def _on_start(self, code: CodeType, offset: int) -> None:
        key = identity(code)
        if threading.get_ident() != self._thread:
            self._coarse.add(key)  # its end comes on that thread too: nothing to close
            return
        token = None
        if self._opened < SPANS_PER_TEST:
            self._opened += 1
            token = self._tracer.open_span()
        else:
            self._coarse.add(key)
        if not self._open:  # PY_UNWIND is global only: on while a call is open
            _MON.set_events(self._tool, _MON.events.PY_UNWIND)
        self._open.append((_getframe(1), key, token))

    def _on_return(self, code: CodeType, offset: int, value: object) -> None:
        self._end(code, frozen(value))

    def _on_unwind(self, code: CodeType, offset: int, exception: BaseException) -> None:
        self._end(code, True)  # nothing was cached

    def _end(self, code: CodeType, told: bool) -> None:
        frame = _getframe(2)
        if not self._open or self._open[-1][0] is not frame:
            return  # another frame unwinding, or another thread's call
        _, key, token = self._open.pop()
        if not self._open:
            _MON.set_events(self._tool, 0)
        span = None if token is None else self._tracer.close_span(token)
        if span is None or not told:
            self._coarse.add(key)
        else:
            self._spans.setdefault(key, {key: code}).update(span)


def frozen(value: object, depth: int = 0) -> bool:
    """Whether ``value`` cannot change once made: a cached value code running after the
    call could change (a list, an instance, a class) depends on that code too."""
    kind = type(value)
    if kind in _FROZEN_TYPES:
        return True
    if kind in (tuple, frozenset) and depth < _FROZEN_DEPTH and len(value) <= _FROZEN_ITEMS:  # type: ignore[arg-type]
        return all(frozen(item, depth + 1) for item in value)  # type: ignore[attr-defined]
    return False
