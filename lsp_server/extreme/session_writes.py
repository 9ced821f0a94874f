"""The project files a worker's own pytest session writes, put back when the worker ends.

A worker is a pytest session over the project: its ``pytest_configure`` and
``pytest_sessionfinish`` hooks, and those of every plugin it loads (it must load what
pytest loads: a plugin can change how tests run), run in the worker's own process, around
runs of no test of its own. A conftest that stamps a file when its session starts or ends,
or pytest-cov starting from the ``--cov`` of the ``addopts`` (it reads the options before
``project_options`` drops them) and saving its ``.coverage`` at the end, would leave the
user's file replaced by one about a session that ran nothing.

So the worker keeps, in its own process only (its forked children's runs are
``project_writes``'s), the bytes of each existing project file its session is about to
change, the first time, and puts back those that differ when it ends: after its exit
handlers (coverage saves in one), or at its SIGTERM. Files the session made stay, as plain
pytest leaves them. Standard library only, but for the one atomic write helper."""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

from lsp_server.extreme.project_writes import IGNORED_PARTS, ProjectWrites, changed_paths
from lsp_server.project.text import write_atomic

_EVENTS = frozenset({"open", "os.rename", "os.remove", "os.truncate", "sqlite3.connect"})
"""Audit events that can change a file; ``sqlite3.connect`` opens a database that the
connection then writes without an ``open`` event (coverage's data file)."""


class SessionWrites:
    """The originals of the project files the worker process over ``root`` changes."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root) + os.sep
        self._owner = 0  # the worker's pid; never a child's, whose runs are noted apart
        self.kept: dict[str, tuple[bytes, int]] = {}  # path -> bytes, mode
        self._seen: set[str] = set()
        self._paused = False

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Not keeping in the block: where a session runs its tests in its own process
        (``factoring.session_guard``), what the tests write is theirs."""
        self._paused = True
        try:
            yield
        finally:
            self._paused = False

    def start(self, through: ProjectWrites | None = None) -> None:
        """Before pytest starts, in the worker: keep from now on (through the audit hook
        of ``through`` between its requests, else a hook of its own); put back at its end."""
        self._owner = os.getpid()
        if through is None:
            sys.addaudithook(self.audit)
        else:
            through.between = self.audit
            through.hook()
        # Registered before pytest and its plugins register theirs: the exit handlers run
        # last in, first out, so this one runs after them (coverage saves in one).
        atexit.register(self.put_back)

    def put_back(self) -> list[str]:
        """The kept files whose bytes differ put back (their paths, relative); no more
        keeping afterwards (the restores themselves write)."""
        if self._owner != os.getpid():
            return []  # a forked child or sibling: the worker itself puts them back
        self._owner = 0
        restored = []
        for path, (data, mode) in sorted(self.kept.items()):
            with contextlib.suppress(OSError), open(path, "rb") as now:
                if now.read() == data:
                    continue  # unchanged (a file the session removed is put back)
            with contextlib.suppress(OSError):
                write_atomic(path, data)
                os.chmod(path, mode)
                restored.append(os.path.relpath(path, self.root))
        return restored

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event not in _EVENTS or self._paused or self._owner != os.getpid():
            return
        if event == "open" and args[1] in ("r", "rb", "rt"):  # every import reads
            return
        with contextlib.suppress(Exception):  # never break the session's own call
            for path in changed_paths(event, args):
                self._keep(path)

    def _keep(self, path: str) -> None:
        if path in self._seen or not path.startswith(self.root):
            return
        self._seen.add(path)
        if IGNORED_PARTS.intersection(path[len(self.root) :].split(os.sep)):
            return
        real = os.path.realpath(path)  # a symbolic link's target is what gets written
        with contextlib.suppress(OSError):  # absent (made by the session) or unreadable
            mode = os.stat(real).st_mode & 0o7777
            with open(real, "rb") as original:
                self.kept[real] = (original.read(), mode)
