"""The bytes each project file had before a run of the analysis first wrote it, put back.

The workers run the tests in the project's own directory, and some tests rewrite a file of
the project and restore it in their teardown (tomlkit's ``test_toml_file``). A run stopped
before that teardown (a hang stopped at its deadline, a busy loop at its CPU budget, a
crash, the worker ended) leaves the file truncated or changed: the user's data lost, and a
later run that reads the file fails for a reason that is not its transformation.

So the audit hook that notes a run's writes (``project_writes``) first keeps the file's
bytes (``Originals.keep``, in the child, before the ``open`` happens): the first keep of a
file in an analysis wins, under a lock, so a second writer waits until the first copy is
whole. The worker puts back the files a request wrote once its runs ended, wherever their
bytes differ (``restore``); the analysis does it for every kept file at its end
(``finish``), then drops the copies (the last analysis out, when two run at once). A file
the tests made stays, as plain pytest leaves it. Each restore is atomic (a temporary file
replaced into place) and keeps the file's mode. The
copies live in the project's ``.reks`` folder, so a worker and the analysis find them
without being told; copies an analysis that was itself killed left behind are moved aside
(``begin``), never applied over what the user may have edited since.

Standard library only, but for the one atomic write helper (runs in the children)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterable
from pathlib import Path

from lsp_server.project.files import STORE_DIR
from lsp_server.project.text import write_atomic

FOLDER = "extreme-originals"
"""The folder in the project's ``.reks`` that holds the kept bytes of one analysis."""
ORIGINALS_LEFT = (
    "an analysis that ended before putting back the files its tests wrote left their "
    "original bytes, not applied (compare them with your files), in"
)
RESTORED_LOG = "restored.log"
"""In ``FOLDER``: the paths the workers put back (one a line), for the analysis's report."""


class Originals:
    """The kept originals of the project at ``root`` (the same folder in every process)."""

    def __init__(self, root: str | Path) -> None:
        self.root = os.path.realpath(root)
        self.folder = os.path.join(self.root, STORE_DIR, FOLDER)
        self._live: int | None = None  # a shared lock held while an analysis runs

    def begin(self) -> str | None:
        """Before an analysis: copies left by one that ended before ``finish`` (it was
        killed: no live analysis holds the lock) moved aside; the folder they are in now,
        if any. Analyses at the same time share the copies (first keep wins)."""
        aside = None
        try:
            os.makedirs(os.path.dirname(self.folder), exist_ok=True)
            self._live = os.open(self.folder + ".lock", os.O_CREAT | os.O_RDWR, 0o600)
        except OSError:
            return None  # no lock, no move: the copies are shared as they are
        if _locked(self._live, fcntl.LOCK_EX | fcntl.LOCK_NB) and _has_copies(self.folder):
            aside = f"{self.folder}-left-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
            os.replace(self.folder, aside)
        fcntl.flock(self._live, fcntl.LOCK_SH)
        return aside

    def keep(self, path: str) -> None:
        """Keep the bytes of ``path`` (absolute) unless an earlier run kept them."""
        real = os.path.realpath(path)  # a symbolic link's target is what gets written
        name = hashlib.sha1(os.fsencode(real)).hexdigest()
        meta = os.path.join(self.folder, name + ".json")
        if os.path.exists(meta):  # written last: the copy is whole
            return
        os.makedirs(self.folder, exist_ok=True)
        lock = os.open(os.path.join(self.folder, ".lock"), os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)  # a second writer waits for the whole copy
            if os.path.exists(meta):
                return
            record: dict[str, object] = {"path": os.fsdecode(real)}
            try:
                record["mode"] = os.stat(real).st_mode & 0o7777
                write_atomic(os.path.join(self.folder, name + ".bytes"), Path(real).read_bytes())
            except FileNotFoundError:
                record["absent"] = True
            write_atomic(meta, json.dumps(record))
        finally:
            os.close(lock)  # releases the lock

    def restore(self, paths: Iterable[str] | None = None) -> list[str]:
        """Put back the kept files (those of ``paths``, absolute, or all) whose bytes
        differ from their originals; the paths put back, relative to the root when under
        it, each also noted in ``RESTORED_LOG``."""
        wanted = None if paths is None else {os.path.realpath(p) for p in paths}
        restored = []
        for record, data in self._kept():
            path = str(record["path"])
            if (wanted is None or path in wanted) and _put_back(path, record, data):
                restored.append(self._shown(path))
        if restored:
            with open(os.path.join(self.folder, RESTORED_LOG), "a", encoding="utf-8") as log:
                log.write("".join(f"{p}\n" for p in restored))
        return restored

    def finish(self) -> list[str]:
        """After an analysis: every kept file put back where it differs, the copies
        dropped; every path a worker or this put back during the analysis, sorted."""
        if not os.path.isdir(self.folder):
            return []
        self.restore()
        log = Path(self.folder, RESTORED_LOG)
        restored = set(log.read_text(encoding="utf-8").splitlines()) if log.exists() else set()
        if self._live is not None:
            if _locked(self._live, fcntl.LOCK_EX | fcntl.LOCK_NB):  # the last one out
                shutil.rmtree(self.folder, ignore_errors=True)
            os.close(self._live)
            self._live = None
        return sorted(restored)

    def _kept(self) -> Iterable[tuple[dict[str, object], bytes | None]]:
        with contextlib.suppress(FileNotFoundError):
            for entry in sorted(os.listdir(self.folder)):
                if not entry.endswith(".json"):
                    continue
                meta = os.path.join(self.folder, entry)
                record = json.loads(Path(meta).read_text(encoding="utf-8"))
                if record.get("absent"):
                    yield record, None
                else:
                    yield record, Path(meta[: -len(".json")] + ".bytes").read_bytes()

    def _shown(self, path: str) -> str:
        inside = path.startswith(self.root + os.sep)
        return os.path.relpath(path, self.root) if inside else path


def _locked(fd: int, how: int) -> bool:
    try:
        fcntl.flock(fd, how)
    except BlockingIOError:
        return False
    return True


def _has_copies(folder: str) -> bool:
    return os.path.isdir(folder) and bool(os.listdir(folder))


def _put_back(path: str, record: dict[str, object], data: bytes | None) -> bool:
    """Whether ``path`` differed from its original ``data`` and was put back. A file the
    tests made (``data`` None) stays, as plain pytest leaves it: a later test may read it
    (an order-dependent suite, a probe the user reads), and removing it loses nothing of
    the user's but also saves nothing."""
    if data is None:
        return False
    try:
        now: bytes | None = Path(path).read_bytes()
    except FileNotFoundError:
        now = None
    except IsADirectoryError:
        return False  # made a directory by the run: not a file to put back
    if now == data:
        return False
    write_atomic(path, data)
    os.chmod(path, int(str(record["mode"])))
    return True
