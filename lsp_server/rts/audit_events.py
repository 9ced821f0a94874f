"""Files opened, code about to be executed and functions whose code is read, from one
process-wide audit hook.

Audit hooks cannot be removed: the hook is installed once, the first time a watcher or a
tracer needs it, and does nothing unless a ``FileWatcher`` is active (``open`` events) or
a tracer asked for ``exec`` events (``watch_exec``) or a recorder for ``__code__`` reads
(``watch_code_reads``) or for processes started (``watch_processes``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import CodeType
from typing import Any

from lsp_server.rts.directory_listings import (
    LISTING_EVENTS,
    event_path,
    listed_by_import_system,
    listed_folder,
)
from lsp_server.rts.source_file_reads import LinecacheWatch, opened_as_code

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class FileWatcher:
    """Absolute paths of files opened for reading since the last ``take()``."""

    def __init__(self) -> None:
        self._opened: set[str] = set()
        self._diverted: list[str] | None = None

    def divert(self, log: list[str] | None) -> list[str] | None:
        """Append what is opened from now on to ``log``, in order, instead of keeping it
        for ``take()`` (None: keep it again); the log diverted to before."""
        previous, self._diverted = self._diverted, log
        return previous

    def on_open(self, args: tuple[Any, ...]) -> None:
        path, mode, flags = (*tuple(args), None, None, None)[:3]
        opened = None if path is None else event_path(path)
        if opened is None:
            return
        if isinstance(mode, str):
            if any(c in mode for c in "wax+"):
                return
        elif isinstance(flags, int) and flags & _WRITE_FLAGS:
            return
        # on_open <- _audit <- the caller of open
        if opened.endswith(".py") and opened_as_code(sys._getframe(2)):
            return  # compiled or cached for reading lines: ``rts.source_file_reads``
        self.note(opened)

    def on_listing(self, args: tuple[Any, ...]) -> None:
        # on_listing <- _audit <- the caller of listdir/scandir
        folder = listed_folder(args)
        if folder is not None and not listed_by_import_system(sys._getframe(2)):
            self.note(folder)  # ``rts.directory_listings``

    def note(self, opened: str) -> None:
        """Count ``opened`` (an absolute path) as read."""
        if self._diverted is None:
            self._opened.add(opened)
        else:
            self._diverted.append(opened)

    def take(self) -> set[str]:
        opened, self._opened = self._opened, set()
        return opened


_active_watcher: FileWatcher | None = None
_linecache_watch = LinecacheWatch()
_on_exec: Callable[[CodeType], None] | None = None
_on_code_read: Callable[[object], None] | None = None
_on_process: Callable[[], None] | None = None
_PROCESS_STARTS = frozenset(
    [
        "subprocess.Popen",
        "os.system",
        "os.posix_spawn",
        "os.spawn",
        "os.exec",
        "os.fork",
        "os.forkpty",
        "os.startfile",
    ]
)
"""The events that start a process (``os.exec`` replaces this one: it is noted all the same)."""
_hook_installed = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open":
        if _active_watcher is not None:
            _active_watcher.on_open(args)
    elif event in LISTING_EVENTS:
        if _active_watcher is not None:
            _active_watcher.on_listing(args)
    elif event == "exec" and _on_exec is not None and type(args[0]) is CodeType:
        _on_exec(args[0])
    elif event == "object.__getattr__" and _on_code_read is not None and args[1] == "__code__":
        _on_code_read(args[0])
    elif _on_process is not None and event in _PROCESS_STARTS:
        _on_process()


def _install_audit_hook() -> None:
    global _hook_installed
    if not _hook_installed:
        sys.addaudithook(_audit)
        _hook_installed = True


def activate_watcher(watcher: FileWatcher | None) -> None:
    """Route ``open`` audit events to ``watcher`` (None: ignore them)."""
    global _active_watcher
    _active_watcher = watcher
    _linecache_watch.stop()
    if watcher is not None:
        _install_audit_hook()
        _linecache_watch.start(lambda name: watcher.note(os.path.abspath(name)))


def watch_exec(callback: Callable[[CodeType], None] | None) -> None:
    """Hand every code object about to be executed (``exec``, ``eval``, imports) to
    ``callback`` (None: stop)."""
    global _on_exec
    _on_exec = callback
    if callback is not None:
        _install_audit_hook()


def watch_code_reads(callback: Callable[[object], None] | None) -> None:
    """Hand every object whose ``__code__`` is read (CPython raises ``object.__getattr__``
    for a function's) to ``callback`` (None: stop)."""
    global _on_code_read
    _on_code_read = callback
    if callback is not None:
        _install_audit_hook()


def watch_processes(callback: Callable[[], None] | None) -> None:
    """Call ``callback`` before each process is started (None: stop)."""
    global _on_process
    _on_process = callback
    if callback is not None:
        _install_audit_hook()
