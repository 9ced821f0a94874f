"""Collecting which code objects ran and which files were opened, per test.

On Python 3.12+ a ``sys.monitoring`` PY_START callback records each code object once and
returns ``DISABLE``; ``take()`` calls ``restart_events()`` so the next test sees every
code object again. This costs one callback per distinct function per test instead of one
per call. On 3.10/3.11 a profile hook (``sys.setprofile`` and ``threading.setprofile``)
records the code of every ``call`` event.

Files are observed through one process-wide audit hook (audit hooks cannot be removed);
it does nothing unless a ``FileWatcher`` is active.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from types import CodeType, FrameType
from typing import Any

_MON: Any = getattr(sys, "monitoring", None)

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class CodeTracer:
    """Code objects started since the last ``take()``."""

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def take(self, restart: bool = True) -> set[CodeType]:
        """Code objects seen since the last call. ``restart=False`` when nothing will be
        attributed until the next ``take()`` with restart (the end of a test)."""
        raise NotImplementedError


class MonitoringTracer(CodeTracer):
    """``sys.monitoring`` PY_START with per-code DISABLE (Python 3.12+)."""

    # Tool ids 0-2 are claimed by debuggers, coverage and profilers; 5 is the optimizer's.
    _CANDIDATE_IDS = (4, 3, 2)

    def __init__(self) -> None:
        self._seen: set[CodeType] = set()
        self._tool: int | None = None
        # The callback runs once per code object per test: keep it to a bound method call
        # on a set that is never replaced, and a constant from the closure.
        add = self._seen.add
        disable = _MON.DISABLE

        def on_start(code: CodeType, offset: int) -> Any:
            add(code)
            return disable

        self._on_start = on_start

    def start(self) -> None:
        mon = _MON
        for tool in self._CANDIDATE_IDS:
            if mon.get_tool(tool) is None:
                mon.use_tool_id(tool, "reks")
                self._tool = tool
                break
        else:
            raise RuntimeError("reks: no free sys.monitoring tool id")
        mon.register_callback(self._tool, mon.events.PY_START, self._on_start)
        mon.set_events(self._tool, mon.events.PY_START)

    def stop(self) -> None:
        if self._tool is None:
            return
        mon = _MON
        mon.set_events(self._tool, 0)
        mon.register_callback(self._tool, mon.events.PY_START, None)
        mon.free_tool_id(self._tool)
        self._tool = None

    def take(self, restart: bool = True) -> set[CodeType]:
        seen = set(self._seen)
        self._seen.clear()
        if restart:
            _MON.restart_events()
        return seen


class ProfileTracer(CodeTracer):
    """A profile hook recording the code of every Python call (Python 3.10/3.11)."""

    def __init__(self) -> None:
        self._seen: set[CodeType] = set()

    def _profile(self, frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            self._seen.add(frame.f_code)

    def start(self) -> None:
        sys.setprofile(self._profile)
        threading.setprofile(self._profile)

    def stop(self) -> None:
        sys.setprofile(None)
        threading.setprofile(None)

    def take(self, restart: bool = True) -> set[CodeType]:
        seen, self._seen = self._seen, set()
        return seen


def new_tracer() -> CodeTracer:
    return MonitoringTracer() if _MON is not None else ProfileTracer()


class FileWatcher:
    """Absolute paths of files opened for reading since the last ``take()``."""

    def __init__(self) -> None:
        self._opened: set[str] = set()

    def on_open(self, args: tuple[Any, ...]) -> None:
        path, mode, flags = (*tuple(args), None, None, None)[:3]
        if isinstance(path, int) or path is None:
            return
        if isinstance(mode, str):
            if any(c in mode for c in "wax+"):
                return
        elif isinstance(flags, int) and flags & _WRITE_FLAGS:
            return
        with contextlib.suppress(TypeError, ValueError):
            self._opened.add(os.path.abspath(os.fsdecode(path)))

    def take(self) -> set[str]:
        opened, self._opened = self._opened, set()
        return opened


_active_watcher: FileWatcher | None = None
_hook_installed = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _active_watcher is not None:
        _active_watcher.on_open(args)


def activate_watcher(watcher: FileWatcher | None) -> None:
    """Route ``open`` audit events to ``watcher`` (None: ignore them)."""
    global _active_watcher, _hook_installed
    _active_watcher = watcher
    if watcher is not None and not _hook_installed:
        sys.addaudithook(_audit)
        _hook_installed = True
