"""One warm rope project per workspace root, reading unsaved editor buffers.

rope reads every file through its ``fscommands.read``; ``_OverlayCommands`` answers from
the editor buffers (overlays) first, so rope refactors what the user sees, and nothing is
written to disk to do it. When a buffer or a file on disk changes, only that resource is
invalidated in rope's caches (rope's own observers), keeping the rest of the project warm.

Everything that touches the rope project must run on the workspace's ``Worker``;
``set_overlay`` and ``mark_changed`` may be called from any thread (they only queue the
invalidation, which the worker drains before its next task).
"""

from __future__ import annotations

import functools
import os
import threading
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsp_server.jobs import Cancelled, Job
from lsp_server.project.files import EXCLUDED_DIRS, ROOT_ONLY_EXCLUDED_DIRS
from lsp_server.refactor.file_cache import FileCache
from lsp_server.refactor.rope_thread import BACKGROUND, Worker

if TYPE_CHECKING:  # rope itself is imported by the first ``project`` (issue 15)
    from rope.base.project import Project
    from rope.base.resources import File, Resource

PREWARM_SLICE = 25
"""Files parsed per background slice: a request waits for at most one slice."""
READ_AHEAD_SLICE = 50
"""Files read per background slice of ``read_ahead`` (a read is much cheaper than a parse)."""

# rope matches these names at any depth (it cannot anchor a pattern at the root).
_IGNORED = [
    "*.pyc",
    "*~",
    "*.egg-info",
    *sorted(EXCLUDED_DIRS | ROOT_ONLY_EXCLUDED_DIRS),
]


class RopeWorkspace:
    """The rope project of one workspace root, with overlays and per-resource invalidation."""

    def __init__(self, root: str | Path, worker: Worker | None = None) -> None:
        self.root = os.path.realpath(str(root))
        self.worker = worker if worker is not None else Worker()
        self._lock = threading.Lock()
        self._overlays: dict[str, str] = {}
        self._dirty: set[str] = set()
        self._changes = 0
        self._changed: dict[str, int] = {}
        """Path -> the number of its last change, for the copies of this workspace in other
        processes (``changes_since``): each copy is told what changed since its last message."""
        self._project: Project | None = None
        self._warm = False
        self._syntax_cache: dict[str, tuple[str, str | None]] = {}
        self._files = FileCache()
        self._needle: tuple[str, dict[str, tuple[str, bool]]] = ("", {})
        self._listed: tuple[object, list[tuple[File, str]]] = (None, [])
        """rope's set of the project's files, and the Python files in it (real paths)."""
        """The last needle of ``parsable_files``: path -> (the text searched, found)."""

    # -- any thread ---------------------------------------------------------------
    def contains(self, path: str) -> bool:
        real = os.path.realpath(path)
        return real == self.root or real.startswith(self.root + os.sep)

    def set_overlay(self, path: str, text: str | None) -> None:
        """The editor buffer of ``path`` is ``text`` (None: closed, the disk holds the truth)."""
        real = os.path.realpath(path)
        with self._lock:
            if text is None:
                self._overlays.pop(real, None)
            else:
                self._overlays[real] = text
            self._note_change(real)

    def mark_changed(self, path: str) -> None:
        """``path`` changed, appeared or disappeared on disk."""
        with self._lock:
            self._note_change(os.path.realpath(path))

    def _note_change(self, real: str) -> None:
        """Called with the lock held."""
        self._dirty.add(real)
        self._changes += 1
        self._changed[real] = self._changes

    def read(self, path: str) -> str | None:
        """Current text of ``path``: the editor buffer, else the disk; None if neither."""
        real = path if path.startswith(self.root + os.sep) else os.path.realpath(path)
        with self._lock:
            text = self._overlays.get(real)
        if text is not None:
            return text
        return self._files.read_text(real)

    def overlays(self) -> dict[str, str]:
        """Absolute path -> text of every editor buffer (a copy)."""
        with self._lock:
            return dict(self._overlays)

    def changes_since(self, mark: int | None) -> tuple[int, dict[str, str | None]]:
        """Path -> buffer text (None: no buffer, read the disk) of every path changed after
        ``mark`` (None: ever, and every buffer: for a copy that was told nothing yet), and
        the mark to give next time. For a copy of this workspace in another process (a rope
        worker), which never drains the changes itself (its rope project lives there)."""
        with self._lock:
            if mark is None:
                changes = {path: self._overlays.get(path) for path in self._changed}
                changes.update(self._overlays)
            else:
                changes = {
                    path: self._overlays.get(path)
                    for path, number in self._changed.items()
                    if number > mark
                }
            return self._changes, changes

    def unreadable_reason(self, path: str) -> str:
        """Why ``read`` gave None for ``path``."""
        return self._files.decode_problem(path) or "cannot be read"

    def overlay(self, path: str) -> str | None:
        with self._lock:
            return self._overlays.get(os.path.realpath(path))

    @property
    def is_warm(self) -> bool:
        return self._warm

    def relpath(self, path: str) -> str:
        return Path(os.path.relpath(os.path.realpath(path), self.root)).as_posix()

    def abspath(self, rel: str) -> str:
        return os.path.join(self.root, *rel.split("/"))

    # -- worker thread only ---------------------------------------------------------
    @property
    def project(self) -> Project:
        """The rope project, with pending invalidations applied. Worker thread only."""
        if self._project is None:
            from lsp_server.refactor.overlay_files import open_project

            self._project = open_project(
                self.root, self._overlays, self._lock, self._files, _IGNORED
            )
        self._drain()
        return self._project

    def _drain(self) -> None:
        with self._lock:
            dirty, self._dirty = self._dirty, set()
        if not dirty or self._project is None:
            return
        project = self._project
        for real in dirty:
            self._syntax_cache.pop(real, None)
            if not self.contains(real):
                continue
            rel = self.relpath(real)
            if os.path.exists(real):
                resource = (
                    project.get_file(rel) if os.path.isfile(real) else project.get_folder(rel)
                )
                for observer in list(project.observers):
                    observer.resource_changed(resource)
            else:
                resource = project.get_file(rel)
                for observer in list(project.observers):
                    observer.resource_removed(resource)
        # New or removed files change rope's file list; a changed file only its module.
        project.file_list.files = None

    def resource(self, path: str) -> Resource:
        """The rope resource of an absolute path in this workspace."""
        if not self.contains(path):
            raise ValueError(f"{path} is outside the workspace {self.root}")
        from rope.base import libutils

        resource = libutils.path_to_resource(self.project, os.path.realpath(path))
        if resource is None:
            raise ValueError(f"{path} is not in the rope project")
        return resource

    def python_files(self) -> list[File]:
        return [resource for resource, _ in self._python_files()]

    def _python_files(self) -> list[tuple[File, str]]:
        """Every Python file with its real path, listed again only when rope lists the
        project's files again (its cached set is a new one): a rename walks them all, and
        rope's filter and path joins cost more than the search itself."""
        listed = self.project.file_list.get_files()
        if self._listed[0] is not listed:
            files = self.project.get_python_files()
            self._listed = (listed, [(resource, resource.real_path) for resource in files])
        return self._listed[1]

    def syntax_error(self, resource: File) -> str | None:
        """Why rope cannot parse ``resource`` (None when it parses); cached per content.

        rope itself parses it (``get_pymodule``), which it must do anyway to search or
        change the file: a parse of our own first would parse every searched file twice
        (half the time of a first rename, and of the pre-warm)."""
        real = resource.real_path
        text = self.read(real)
        if text is None:
            return self.unreadable_reason(real)
        cached = self._syntax_cache.get(real)
        if cached is not None and cached[0] == text:
            return cached[1]
        from rope.base import exceptions as rope_exceptions

        try:
            with warnings.catch_warnings():
                # Python shows a project's own warnings when it imports the module.
                warnings.simplefilter("ignore", SyntaxWarning)
                warnings.simplefilter("ignore", DeprecationWarning)
                self.project.get_pymodule(resource, force_errors=True)
            error = None
        except rope_exceptions.ModuleSyntaxError as exc:
            error = f"syntax error at line {exc.lineno}: {exc.message_}"
        self._syntax_cache[real] = (text, error)
        return error

    def parsable_files(
        self, needle: str | None = None, check: Callable[[], None] | None = None
    ) -> tuple[list[File], list[tuple[File, str]]]:
        """Python files split into those rope can parse and those it cannot (with why).

        With ``needle``, only files whose text contains it are returned: the others cannot
        hold an occurrence, and rope would skip them anyway. ``check`` is called before
        each file (a task's cancellation check): rope parses every file that holds the
        needle here, before its own task handle is ever looked at.
        """
        good: list[File] = []
        bad: list[tuple[File, str]] = []
        for resource, real in self._python_files():
            if check is not None:
                check()
            if needle is not None:
                text = self.read(real)
                if text is None:
                    bad.append((resource, self.unreadable_reason(real)))
                    continue
                if not self._contains_needle(real, text, needle):
                    continue
            error = self.syntax_error(resource)
            if error is None:
                good.append(resource)
            else:
                bad.append((resource, error))
        return good, bad

    def _contains_needle(self, path: str, text: str, needle: str) -> bool:
        """``needle in text``, remembered per file for the last needle: renaming the same
        name again (another new name, a warm repeat) searches only the texts that changed
        (the file cache hands back the same ``str`` while a file is unchanged)."""
        if self._needle[0] != needle:
            self._needle = (needle, {})
        known = self._needle[1].get(path)
        if known is not None and known[0] is text:
            return known[1]
        found = needle in text
        self._needle[1][path] = (text, found)
        return found

    def _prewarm_slices(self, job: Job) -> Iterator[Callable[[], Any]]:
        files = self.python_files()
        total = len(files)
        for start in range(0, total, PREWARM_SLICE):
            chunk = files[start : start + PREWARM_SLICE]

            def work(chunk: list[File] = chunk, start: int = start) -> None:
                job.check()
                project = self.project
                for resource in chunk:
                    if self.syntax_error(resource) is None:
                        project.get_pymodule(resource)
                job.report(min(start + len(chunk), total), total, "parsing modules")

            yield work

    def read_ahead(self) -> None:
        """Read and decode every Python file in the background (in slices, so a request
        waits for at most one): a rename searches them all for the old name, and the
        first one then finds them read. Called when a worker learns its root, which can
        be long before the first request (``rope_spare.bind_early``)."""

        def read(chunk: list[str]) -> None:
            for path in chunk:
                self._files.read_text(path)

        def start() -> None:
            paths = [resource.real_path for resource in self.python_files()]
            for at in range(0, len(paths), READ_AHEAD_SLICE):
                self.worker.submit(
                    functools.partial(read, paths[at : at + READ_AHEAD_SLICE]),
                    priority=BACKGROUND,
                )

        self.worker.submit(start, priority=BACKGROUND)

    def prewarm(self, job: Job | None = None) -> Future[None]:
        """Parse every module in the background, in slices; the Future ends with the last."""
        job = job if job is not None else Job()
        done: Future[None] = Future()

        def fail(future: Future[Any]) -> None:
            exc = future.exception() if not future.cancelled() else Cancelled()
            if exc is not None and not done.done():
                done.set_exception(exc)

        def finish() -> None:
            self._warm = True
            job.report(1, 1, "done")
            if not done.done():
                done.set_result(None)

        def start() -> None:
            for work in self._prewarm_slices(job):
                self.worker.submit(work, priority=BACKGROUND, job=job).add_done_callback(fail)
            self.worker.submit(finish, priority=BACKGROUND, job=job).add_done_callback(fail)

        self.worker.submit(start, priority=BACKGROUND, job=job).add_done_callback(fail)
        return done

    def close(self) -> None:
        if self._project is not None:
            project = self._project
            self._project = None
            self.worker.submit(project.close, priority=BACKGROUND)
