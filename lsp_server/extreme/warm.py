"""Warm workers kept between analyses (the editor's): re-analysing an edited function costs
its observation and its transformations, not a new Python, import and collection.

``WarmPools.take`` hands out the pool of a project, started and brought up to date: edits
that only change function bodies are followed in the live workers (``refresh``); any other
change (a test file, a module's top level, functions added or removed, a signature, a
function that ran at import) starts the pool afresh. ``give_back`` keeps it for the next
analysis; ``close`` ends them all.

Starting afresh begins from a spare: workers spawned when the pool was given back, that
started Python and pytest (plugins, conftest files) and wait to collect; the restart pays
for the import and the collection only. A spare whose session imported a project file
(a conftest's imports) or read a configuration file written since it started holds older
code: it is closed and the pool starts from nothing. So the spares of a project whose
sessions import project files before they collect (a conftest importing the project, as
marshmallow's does) wait before pytest starts instead: Python, pytest, reks and the
libraries the session imported (``library_imports``) imported, no plugin, conftest,
configuration or project file loaded, so no edit makes them stale; the restart then pays
for pytest's start, the conftests, the project's import and the collection.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from lsp_server.extreme.pool import COLLECT_TIMEOUT, WorkerError, WorkerPool
from lsp_server.extreme.state import file_units, remembered_units
from lsp_server.jobs import Job
from lsp_server.project import python_files
from lsp_server.project.files import is_test_path
from lsp_server.rts.unit_names import DOC, header_name, is_place
from lsp_server.rts.units import SourceError, file_checksum, path_units, source_units

PoolKey = tuple[str, int, str | None, tuple[str, ...]]
SESSION_FILES = ("conftest.py", "pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
"""Files at the root whose change a pre-import worker's session cannot follow, beside the
project files it imported (a new conftest.py too)."""


@dataclass
class _Snapshot:
    """The project's Python files as the pool's workers imported them."""

    hashes: dict[str, str] = field(default_factory=dict)  # path -> checksum of its bytes
    texts: dict[str, str] = field(default_factory=dict)


def snapshot_files(root: Path, previous: _Snapshot | None = None) -> _Snapshot:
    """The project's Python files now; the text of a file whose bytes are those it had in
    ``previous`` is taken from there, not decoded again. Every file is read: a stamp
    (mtime, size) misses an edit of the same size within one tick of the file system's
    clock (a second on some), and reading is cheap beside a save's re-analysis (toolz,
    marshmallow: under a millisecond; 600 files, 3.6 MB: about 30 ms)."""
    snapshot = _Snapshot()
    before = previous or _Snapshot()
    for path in python_files(root):
        rel = path.relative_to(root).as_posix()
        try:
            data = path.read_bytes()
            digest = file_checksum(data)
            known = before.texts.get(rel) if before.hashes.get(rel) == digest else None
            snapshot.texts[rel] = _text(data) if known is None else known
        except (OSError, UnicodeDecodeError):
            continue
        snapshot.hashes[rel] = digest
    return snapshot


def _text(data: bytes) -> str:
    """``data`` decoded as ``Path.read_text`` does (UTF-8, universal newlines)."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _followable(root: Path, rel: str, old_text: str, old_hash: str, import_time: Set[str]) -> bool:
    """The edit of ``rel`` changes function bodies only (same units, and the same checksum
    of every other one), none of a function that ran at import (``import_time``: what it
    computed then stays in the live modules). Both versions were usually parsed by an
    analysis already."""
    if is_test_path(rel):
        return False
    try:
        current = file_units(root, rel)
        remembered = remembered_units(root, rel, old_hash)
        now = (current or path_units(root, root / rel)).checksums
        tmp_units = (
            dict(remembered.checksums) if remembered else _units_of_text(root, rel, old_text)
        )
    except (OSError, SourceError, ValueError, SyntaxError):
        return False
    # A worker follows a function's body and docstring (``refresh``); a header (defaults,
    # decorators) and the top level (constants, imports, class bodies: the values the
    # live functions read, class docstrings) must be the same.
    same = [name for name in now if not _followed(name, now)]
    same += [name for name in now if f"{rel}::{name.removesuffix(DOC)}" in import_time]
    # Where code sits is not followed: the functions below a body that grew keep their old
    # line numbers in the live modules (only a test reading them could tell).
    same = [n for n in same if not is_place(n)]
    return set(now) == set(tmp_units) and all(now.get(n) == tmp_units.get(n) for n in same)


def _followed(name: str, units: Mapping[str, str]) -> bool:
    """A function's body or docstring unit."""
    function = name.removesuffix(DOC)
    return header_name(function) in units and (function == name or name.endswith(DOC))


def _units_of_text(root: Path, rel: str, text: str) -> dict[str, str]:
    return dict(source_units(rel, text).checksums)


class _Stamp(NamedTuple):
    """A session file as it is now: the stamp alone misses an edit of the same size within
    one tick of the file system's clock, so its bytes' checksum too."""

    changed_ns: int  # the later of mtime and ctime (a restored mtime moves the ctime)
    size: int
    checksum: str

    def written_since(self, ns: int) -> bool:
        return self.changed_ns >= ns


def _stamp(path: Path) -> _Stamp | None:
    try:
        stat = path.stat()
        data = path.read_bytes()
    except OSError:
        return None
    return _Stamp(max(stat.st_mtime_ns, stat.st_ctime_ns), len(data), file_checksum(data))


def _session_stamps(root: Path, files: Iterable[str]) -> dict[str, _Stamp | None]:
    return {rel: _stamp(root / rel) for rel in {*SESSION_FILES, *files}}


@contextlib.contextmanager
def lent(pool: WorkerPool, warm: WarmPools | None, wait: bool = True) -> Iterator[WorkerPool]:
    """``pool`` for the block: terminated when the block raises, else given back to
    ``warm`` (closed without one; only told to quit unless ``wait``: see ``end_input``)."""
    try:
        yield pool
    except BaseException:
        pool.terminate()
        raise
    if warm is not None:
        warm.give_back(pool)
    elif wait:
        pool.close()
    else:
        pool.end_input()


class WarmPools:
    """Pools kept alive between analyses, by project and settings; and the project's
    pre-import workers (``pre_import``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pools: dict[PoolKey, tuple[WorkerPool, _Snapshot]] = {}
        self._pre_import: dict[PoolKey, WorkerPool] = {}
        self._spares: dict[PoolKey, WorkerPool] = {}
        self._early_spares: set[PoolKey] = set()  # spares wait before pytest (see above)
        # The project files the last pre-import workers of a key imported in their session.
        self._pre_imported: dict[PoolKey, frozenset[str]] = {}
        self.restarts = 0  # pools started afresh (for tests and the benchmark)
        self.spares_used = 0  # of those, started from a spare (likewise)
        self.spares_started = 0  # (likewise)
        self.pre_import_starts = 0  # pre-import workers started afresh (likewise)

    def take_pre_import(
        self,
        root: Path,
        size: int,
        python: str | None,
        pytest_args: Sequence[str],
        collect_timeout: float = COLLECT_TIMEOUT,
    ) -> WorkerPool:
        """The project's pre-import workers: the kept ones, unless a file their session
        loaded (a conftest, a project file it imported, the configuration) changed since;
        else new ones, spawned (``WorkerPool.start`` waits for them)."""
        key: PoolKey = (str(root), size, python, tuple(pytest_args))
        with self._lock:
            pool = self._pre_import.pop(key, None)
        if pool is not None:
            assert isinstance(pool.snapshot, dict)
            if pool.alive() and _session_stamps(root, pool.preloaded) == pool.snapshot:
                return pool
            pool.close()
        self.pre_import_starts += 1
        pool = WorkerPool(root, size, python, pytest_args, collect_timeout, pre_import=True)
        pool.snapshot = _session_stamps(root, ())  # before the session reads them
        pool.spawned_ns = time.time_ns()
        pool.spawn()
        return pool

    def imported_before(
        self, root: Path, size: int, python: str | None, pytest_args: Sequence[str]
    ) -> frozenset[str]:
        """The project files the session of the project's last pre-import workers imported
        (a conftest importing the project; empty before any started): a function of one
        of them cannot be checked before import there, and new workers would most likely
        import them again."""
        with self._lock:
            return self._pre_imported.get(
                (str(root), size, python, tuple(pytest_args)), frozenset()
            )

    def _keep_pre_import(self, key: PoolKey, pool: WorkerPool) -> bool:
        """Keep ``pool`` with the stamps of the files its session imported; not when one
        was written after the session started (it may have read the older text)."""
        assert isinstance(pool.snapshot, dict)
        imported = [_stamp(pool.root / rel) for rel in pool.preloaded]
        if not pool.workers or any(s is None or s.written_since(pool.spawned_ns) for s in imported):
            return False
        stamps = _session_stamps(pool.root, pool.preloaded)
        with self._lock:
            if key in self._pre_import:
                return False
            pool.snapshot = {**stamps, **pool.snapshot}
            self._pre_import[key] = pool
        return True

    def take(
        self,
        root: Path,
        size: int,
        python: str | None,
        pytest_args: Sequence[str],
        job: Job,
        collect_timeout: float = COLLECT_TIMEOUT,
    ) -> WorkerPool:
        """The project's pool, started, its workers following the current files. While it
        is taken, another analysis of the project gets a pool of its own."""
        key: PoolKey = (str(root), size, python, tuple(pytest_args))
        with self._lock:
            kept = self._pools.pop(key, None)
        before = kept[0].snapshot if kept is not None else None
        assert before is None or isinstance(before, _Snapshot)
        current = snapshot_files(root, before)
        if kept is not None and before is not None:
            pool, _ = kept
            if self._bring_up_to_date(root, pool, before, current):
                pool.snapshot = current
                return pool
            pool.close()
        self.restarts += 1
        pool = self._spare(key, job) or WorkerPool(root, size, python, pytest_args, collect_timeout)
        pool.snapshot = current
        if pool.scoped:
            pool.scope([])  # the spare's workers collect now (every test file)
        pool.start(job)
        return pool

    def _spare(self, key: PoolKey, job: Job) -> WorkerPool | None:
        """The spare pool of ``key`` waiting to collect; None when there is none, or when
        its session may hold older code (see the module docstring)."""
        with self._lock:
            spare = self._spares.pop(key, None)
        if spare is None:
            return None
        assert isinstance(spare.snapshot, dict)
        try:
            imported = [_stamp(spare.root / rel) for rel in spare.waiting()]
        except WorkerError:  # it died while it waited
            spare.close()
            return None
        written = any(s is None or s.written_since(spare.spawned_ns) for s in imported)
        if written:
            with self._lock:
                self._early_spares.add(key)
        # One waiting before pytest read no configuration file yet.
        read = not spare.before_pytest and _session_stamps(spare.root, ()) != spare.snapshot
        if written or read or not spare.alive():
            spare.close()
            return None
        self.spares_used += 1
        return spare

    def _keep_spare(self, pool: WorkerPool) -> None:
        """Spawn a spare for the in-place ``pool``'s key unless it has one."""
        key: PoolKey = (str(pool.root), pool.size, pool.python_arg, tuple(pool.pytest_args))
        with self._lock:
            if key in self._spares:
                return
            if pool.session_imports:
                self._early_spares.add(key)
            self.spares_started += 1
            args = (pool.root, pool.size, pool.python_arg, pool.pytest_args, pool.collect_timeout)
            early = key in self._early_spares
            libraries = pool.session_libraries if early else []
            spare = WorkerPool(*args, scoped=True, before_pytest=early, preload=libraries)
            spare.snapshot = _session_stamps(pool.root, ())  # before the session reads them
            spare.spawned_ns = time.time_ns()
            spare.spawn()
            self._spares[key] = spare

    def _bring_up_to_date(
        self, root: Path, pool: WorkerPool, before: _Snapshot, current: _Snapshot
    ) -> bool:
        if set(before.hashes) != set(current.hashes) or not pool.alive():
            return False
        changed = [rel for rel, digest in current.hashes.items() if before.hashes[rel] != digest]
        edited = {
            rel: before.texts[rel] for rel in changed if before.texts[rel] != current.texts[rel]
        }
        if not all(
            _followable(root, rel, text, before.hashes[rel], pool.import_time)
            for rel, text in edited.items()
        ):
            return False
        return not edited or pool.refresh(edited) is None

    def give_back(self, pool: WorkerPool) -> None:
        key: PoolKey = (str(pool.root), pool.size, pool.python_arg, tuple(pool.pytest_args))
        snapshot = pool.snapshot
        if pool.pre_import:
            if pool.started:
                with self._lock:
                    self._pre_imported[key] = frozenset(pool.preloaded)
            if not self._keep_pre_import(key, pool):
                pool.close()
            return
        with self._lock:
            if not isinstance(snapshot, _Snapshot) or key in self._pools:
                pool.close()
                return
            self._pools[key] = (pool, snapshot)
        self._keep_spare(pool)

    def close(self) -> None:
        with self._lock:
            pools = [pool for pool, _ in self._pools.values()]
            pools += [*self._pre_import.values(), *self._spares.values()]
            self._pools, self._pre_import, self._spares = {}, {}, {}
        for pool in pools:
            pool.close()
