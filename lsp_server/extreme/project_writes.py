"""Tests that write files of the project, and runs made at the same time as theirs.

The workers run their transformations in the project's own directory, two or more at
once. A test that writes a file of the project (tomlkit's ``test_toml_file`` reads
``tests/examples/example.toml``, writes it back, and restores it) shares that file with
the runs of the other workers: one run can read it while another has it truncated, and a
test fails that passes on its own. Such a failure says nothing about the transformation;
a load that slows the writer widens the window, so the wrong detections came and went
with the machine's load.

``ProjectWrites`` (in each worker) notes the project files a request's runs opened for
writing; ``SharedFiles`` (in the analysis) holds back each reply whose run overlapped
others until they replied, and has the request run again alone when one of them, or it,
wrote a file of the project; from the first such write on, one request runs at a time.
Standard library only (runs in the worker)."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lsp_server.extreme.project_originals import Originals

IGNORED_PARTS = frozenset({".reks", "__pycache__", ".pytest_cache"})
"""Directories whose files a run may write without sharing anything with another run:
reks's own state and bytecode caches (each write there is atomic or private)."""
_WRITING = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_READING = ("r", "rb", "rt")
"""Modes of an ``open`` that cannot write (``io.open_code`` reads each imported module)."""
_PATH_CHANGES = {"os.rename": (0, 1), "os.remove": (0,), "os.truncate": (0,)}
"""Audit events other than ``open`` that change a file, and where their paths are in the
arguments (``os.replace`` raises ``os.rename``, ``os.unlink`` ``os.remove``)."""


def changed_paths(event: str, args: tuple[Any, ...]) -> list[str]:
    """The files (absolute) that the audit event ``event`` with ``args`` is about to write,
    rename or remove; never raises (an audit hook must not break the call it audits)."""
    paths: list[Any] = []
    with contextlib.suppress(Exception):
        if event == "open":
            path, mode, flags = args
            writing = any(c in mode for c in "wax+") if isinstance(mode, str) else None
            if writing is None:
                writing = isinstance(flags, int) and bool(flags & _WRITING)
            paths = [path] if writing else []
        elif event in _PATH_CHANGES:
            paths = [args[i] for i in _PATH_CHANGES[event]]
        elif event == "sqlite3.connect":  # the connection then writes without an ``open``
            paths = [args[0]]
    found = []
    for path in paths:
        if isinstance(path, (str, bytes, os.PathLike)):
            with contextlib.suppress(Exception):
                found.append(os.path.abspath(os.fsdecode(path)))
    return found


class ProjectWrites:
    """In a worker over ``root``: the project files the children of one request opened
    for writing (an audit hook in every child, noting each file once per child into a
    file the worker reads back: a child killed at its deadline has noted them too), each
    file's bytes kept first (``project_originals``) so that they can be put back."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root) + os.sep
        self.originals = Originals(root)
        self._fd: int | None = None
        self._owner = 0  # the worker whose file ``_fd`` is (a forked sibling makes its own)
        self._noted: set[str] = set()
        self._hooked = False
        self._armed = False  # in a request: the worker's own writes between them are its
        # session's, handed to ``between`` (``session_writes``), never a run's
        self.between: Callable[[str, tuple[Any, ...]], None] | None = None

    def arm(self) -> None:
        """Before a request's runs, in the worker: start noting afresh."""
        if self._owner != os.getpid():
            fd, path = tempfile.mkstemp(prefix="reks-writes-")
            os.unlink(path)
            self._fd, self._owner = fd, os.getpid()
        assert self._fd is not None
        os.ftruncate(self._fd, 0)
        os.lseek(self._fd, 0, os.SEEK_SET)  # or the next note lands past a hole of NULs
        self._noted = set()
        self._armed = True
        self.hook()

    def hook(self) -> None:
        """Install the audit hook (once): at the first ``arm``, or before pytest starts
        when it also serves ``between``. One hook for both: every forked child pays
        for each hook at each audit event, and the children run the tests."""
        if not self._hooked:
            sys.addaudithook(self._audit)
            self._hooked = True

    def take(self) -> list[str]:
        """After a request's runs, in the worker: the files they wrote (relative), sorted."""
        if self._fd is None or self._owner != os.getpid():
            return []
        size = os.fstat(self._fd).st_size
        text = os.pread(self._fd, size, 0).decode("utf-8", "surrogateescape") if size else ""
        os.ftruncate(self._fd, 0)
        os.lseek(self._fd, 0, os.SEEK_SET)  # or the next note lands past a hole of NULs
        return sorted(set(text.splitlines()))

    def noted_any(self) -> bool:
        """In a child: whether its runs wrote a file of the project (noted once each)."""
        return bool(self._noted)

    def disarm(self) -> None:
        """After a request, in the worker: its own writes are no longer a run's."""
        self._armed = False

    def put_back(self, wrote: list[str]) -> list[str]:
        """After a request's runs, in the worker: the files of ``wrote`` (relative) that
        differ from their originals put back (those put back), unnoted themselves."""
        if not wrote:
            return []
        fd, self._fd = self._fd, None
        try:
            return self.originals.restore(self.root + rel for rel in wrote)
        finally:
            self._fd = fd

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        # Called for every audit event of the process (imports, compiles, ...): the
        # common case, neither an open nor a path change, returns after three tests.
        if not self._armed:
            if self.between is not None:
                self.between(event, args)
            return
        if event != "open" and event not in _PATH_CHANGES:
            return
        if self._fd is None or (event == "open" and args[1] in _READING):
            return  # imports read every module: quick
        with contextlib.suppress(Exception):  # never break the test's own call
            for path in changed_paths(event, args):
                self._note(path)

    def _note(self, path: str) -> None:
        if not path.startswith(self.root) or path in self._noted:
            return
        rel = path[len(self.root) :]
        if IGNORED_PARTS.intersection(rel.split(os.sep)):
            return
        self._noted.add(path)
        with contextlib.suppress(OSError, ValueError):  # unkept, the write still goes on
            self.originals.keep(path)
        assert self._fd is not None
        os.write(self._fd, (rel + "\n").encode("utf-8", "surrogateescape"))


def noting_writes(
    writes: ProjectWrites,
    work: Callable[[dict[str, Any]], dict[str, Any]],
    request: dict[str, Any],
) -> dict[str, Any]:
    """In the worker: the reply of ``work`` to ``request`` (an observation, a
    transformation's runs) with ``wrote``, the project files its runs wrote
    (``SharedFiles``, ``WorkerPool.observe``), those a stopped test left changed put back."""
    writes.arm()
    try:
        reply = work(request)
        reply["wrote"] = writes.take()
        writes.put_back(reply["wrote"])
    finally:
        writes.disarm()
    return reply


@dataclass
class SharedFiles:
    """The analysis's side: which requests ran at the same time, which runs wrote files
    of the project, and the requests to run again alone (``reruns``)."""

    seen: bool = False  # some run wrote a file of the project: one request at a time
    reruns: list[dict[str, Any]] = field(default_factory=list)
    _flying: set[int] = field(default_factory=set)
    _overlaps: dict[int, set[int]] = field(default_factory=dict)
    _wrote: set[int] = field(default_factory=set)
    _held: dict[int, tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)

    def may_send(self, in_flight: int) -> bool:
        """Whether another request may start while ``in_flight`` run."""
        return in_flight == 0 or not (self.seen or self.reruns)

    def next_request(self) -> dict[str, Any] | None:
        """A request to run again alone, if one waits (``may_send`` let it start)."""
        return self.reruns.pop(0) if self.reruns else None

    def sent(self, request: dict[str, Any]) -> None:
        ident = int(request["id"])
        self._overlaps[ident] = set(self._flying)
        for other in self._flying:
            self._overlaps[other].add(ident)
        self._flying.add(ident)

    def replied(self, request: dict[str, Any], reply: dict[str, Any]) -> list[dict[str, Any]]:
        """The replies to hand on now: ``reply`` when its run overlapped no other, and
        each held one whose overlapping runs all replied without any of them (or it)
        writing a file of the project; the others are queued in ``reruns``."""
        ident = int(reply.get("id", request.get("id", -1)))
        self._flying.discard(ident)
        if reply.get("wrote"):
            self._wrote.add(ident)
            self.seen = True
        ready = []
        if self._overlaps.get(ident):
            self._held[ident] = (request, reply)
        else:
            ready.append(reply)
        for held, (its_request, its_reply) in list(self._held.items()):
            partners = self._overlaps[held]
            if partners & self._flying:
                continue
            del self._held[held]
            if (partners | {held}) & self._wrote:
                self.reruns.append(its_request)
            else:
                ready.append(its_reply)
        return ready
