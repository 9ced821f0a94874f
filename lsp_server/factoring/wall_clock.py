"""The wall clock T reads during a replay, moved: forward (``shift``: does the factored test
still pass when it runs long after its capture?) or back to the capture's moment (``pin``:
the clock as part of E, for a test that compares E's recorded answers with the time now).

A replay answers E from the capture's moment while T reads the clock of the replay's: a
test comparing the two (dunamai's tests check that git's commit date lies within a minute
of ``datetime.utcnow()``) passes right after the capture and fails a minute later. Running
the factored test once with the clock moved forward shows that at capture time.

``install`` puts stand-ins for the readers of the wall clock in place in this process:
``time.time``, ``time.time_ns``, the readers that default to now (``localtime``,
``gmtime``, ``ctime``, ``asctime``, ``strftime``), and ``datetime.datetime`` and
``datetime.date`` (their ``now``, ``utcnow`` and ``today``). The classes are stand-ins a C
type cannot be patched in place: calling one makes an instance of the real class,
``isinstance`` and ``issubclass`` answer for the real class, and a subclass made of one is
an ordinary subclass. Names already bound to the real readers in loaded modules (``from
datetime import datetime``) are rebound. Elapsed-time clocks (``monotonic``,
``perf_counter``) are left alone: a moved wall clock does not make a test slower.

A child process keeps the real clock (git dates its commits by it): a test whose replay
starts one compares a moved clock with a real one, and fails for the move, not for the
transcript. ``watch_children`` counts each test's child processes so that such a failure is
not taken for one.
"""

from __future__ import annotations

import datetime
import os
import sys
import time
from typing import Any

from lsp_server.factoring.clock_readers import ALWAYS_NOW, NOW_BY_DEFAULT, NOW_CONSTRUCTORS

SHIFT_S = 400 * 86400.0 + 3600.0
"""How far forward the check moves the clock: over a year (a date compared by year or by
day differs) and an hour (a comparison by hour does too)."""

_REAL_TIME = time.time
_REAL_TIME_NS = time.time_ns
_REAL_LOCALTIME = time.localtime
_REAL_GMTIME = time.gmtime
_REAL_CTIME = time.ctime
_REAL_ASCTIME = time.asctime
_REAL_STRFTIME = time.strftime
_REAL_DATETIME = datetime.datetime
_REAL_DATE = datetime.date
_LEFT_ALONE = frozenset({"time", "datetime", "_datetime", "_pydatetime", "_strptime", __name__})
"""Modules whose own names for the readers stay real (the stand-ins are built on them)."""


class _Clock:
    """Seconds added to the real wall clock: the session's shift, or while pinned the
    difference between the capture's moment and the moment the pin was set."""

    def __init__(self) -> None:
        self.shift_s = 0.0
        self.pinned_s: float | None = None
        self.installed = False

    @property
    def offset_s(self) -> float:
        return self.shift_s if self.pinned_s is None else self.pinned_s


CLOCK = _Clock()


def shift(seconds: float) -> None:
    """Move every reading of the wall clock in this process ``seconds`` forward."""
    install()
    CLOCK.shift_s = seconds


def pin(moment: float) -> None:
    """From now until ``unpin``, the wall clock starts again at ``moment`` (seconds since
    the epoch) and runs on from there."""
    install()
    CLOCK.pinned_s = moment - _REAL_TIME()


def unpin() -> None:
    CLOCK.pinned_s = None


def _time() -> float:
    return _REAL_TIME() + CLOCK.offset_s


def _time_ns() -> int:
    return _REAL_TIME_NS() + round(CLOCK.offset_s * 1e9)


def _localtime(secs: float | None = None) -> time.struct_time:
    return _REAL_LOCALTIME(_time() if secs is None else secs)


def _gmtime(secs: float | None = None) -> time.struct_time:
    return _REAL_GMTIME(_time() if secs is None else secs)


def _ctime(secs: float | None = None) -> str:
    return _REAL_CTIME(_time() if secs is None else secs)


def _asctime(t: Any = None) -> str:
    return _REAL_ASCTIME(_localtime() if t is None else t)


def _strftime(format: str, t: Any = None) -> str:
    return _REAL_STRFTIME(format, _localtime() if t is None else t)


class _StandIn(type):
    """The type of the stand-in classes: their instances are the real class's (see the
    module); a class made from a stand-in behaves as any subclass."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        real = cls.__dict__.get("_real")
        if real is not None:
            return real(*args, **kwargs)
        return super().__call__(*args, **kwargs)

    def __instancecheck__(cls, value: Any) -> bool:
        real = cls.__dict__.get("_real")
        return isinstance(value, real) if real is not None else super().__instancecheck__(value)

    def __subclasscheck__(cls, other: type) -> bool:
        real = cls.__dict__.get("_real")
        return issubclass(other, real) if real is not None else super().__subclasscheck__(other)


class _Datetime(_REAL_DATETIME, metaclass=_StandIn):
    _real = _REAL_DATETIME

    @classmethod
    def now(cls, tz: datetime.tzinfo | None = None) -> Any:  # a real datetime
        return _REAL_DATETIME.fromtimestamp(_time(), tz)

    @classmethod
    def utcnow(cls) -> Any:
        return _REAL_DATETIME.fromtimestamp(_time(), datetime.timezone.utc).replace(tzinfo=None)

    @classmethod
    def today(cls) -> Any:
        return _REAL_DATETIME.fromtimestamp(_time())


class _Date(_REAL_DATE, metaclass=_StandIn):
    _real = _REAL_DATE

    @classmethod
    def today(cls) -> Any:
        return _REAL_DATE.fromtimestamp(_time())


for _cls, _real in ((_Datetime, _REAL_DATETIME), (_Date, _REAL_DATE)):
    _cls.__name__ = _cls.__qualname__ = _real.__name__
    _cls.__module__ = "datetime"

_STAND_IN_OF: dict[str, Any] = {
    "time": _time,
    "time_ns": _time_ns,
    "localtime": _localtime,
    "gmtime": _gmtime,
    "ctime": _ctime,
    "asctime": _asctime,
    "strftime": _strftime,
    "datetime": _Datetime,
    "date": _Date,
}
_READERS = (*ALWAYS_NOW, *NOW_BY_DEFAULT, *((datetime, cls.__name__) for cls in NOW_CONSTRUCTORS))
# name -> (module, the real reader, its stand-in); KeyError here: a reader without one.
_STAND_INS: dict[str, tuple[Any, Any, Any]] = {
    name: (module, getattr(module, name), _STAND_IN_OF[name]) for module, name in _READERS
}


CHILDREN: dict[str, int] = {}
"""Test node id -> child processes it started (once ``watch_children`` ran)."""
_CURRENT_TEST = "PYTEST_CURRENT_TEST"


def watch_children() -> None:
    """Count from now on the child processes each test starts (``CHILDREN``); an audit
    hook, which cannot be removed: one process, one session."""
    from lsp_server.factoring.children import SPAWN_EVENTS

    def count(event: str, args: tuple[Any, ...]) -> None:
        if event in SPAWN_EVENTS:
            test = os.environ.get(_CURRENT_TEST, "").rpartition(" ")[0]
            CHILDREN[test] = CHILDREN.get(test, 0) + 1

    sys.addaudithook(count)


def install() -> None:
    """Put the stand-ins in place (once per process): in ``time`` and ``datetime``, and for
    every name a loaded module bound to a real reader."""
    if CLOCK.installed:
        return
    CLOCK.installed = True
    by_id = {}
    for name, (module, real, stand_in) in _STAND_INS.items():
        setattr(module, name, stand_in)
        by_id[id(real)] = (real, stand_in)
    for module_name, module in list(sys.modules.items()):
        namespace = getattr(module, "__dict__", None)
        if module_name in _LEFT_ALONE or not isinstance(namespace, dict):
            continue
        for attr, value in list(namespace.items()):
            found = by_id.get(id(value))
            if found is not None and found[0] is value:
                namespace[attr] = found[1]
