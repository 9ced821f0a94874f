"""What a child process of E did to the test's temporary folders, recorded and redone.

A ``subprocess`` boundary replays ``git init`` without running git, so the ``.git`` folder
it made does not exist on replay; T (or the test itself) that then looks at it (``.git``
exists? touch ``.git/refs/tags/bad.txt``) ran on the capture's file system and not on the
replay's. So during capture, each call into such a boundary made by T is bracketed by a
listing of the test's temporary folder (``tmp_path``, once a path in it crossed the
boundary), and the folders and files the call created or changed and the ones it removed are
written into the call's event (``fs``), paths by role (``<tmp_path>/...``) and contents in
base64; on replay the answer redoes them. Outside that folder nothing is recorded: T that
reads a file E wrote elsewhere still sees the replay's file system, and a test that depends
on it fails or diverges, never passes wrongly.

A ``sqlite3`` boundary keeps its files beside each database T opens: the database, its
``-wal``, ``-shm`` and ``-journal``. Replayed, no database is opened and none of them
exists, yet T sees them: diskcache's tests count a cache folder's entries, and its
``os.removedirs`` of an emptied value folder climbs into the cache folder and removes it
when the database files are missing. So each call of T into such a boundary notes which of
those files it made (``made``) and removed (``gone``); on replay a made file is created
empty. Their contents are the database's own business, reached through E: they are not
recorded (T that reads them on replay reads an empty file).

A ``tempfile`` boundary replays ``mkdtemp`` without making a folder, yet T writes into it
(diskcache keeps its values there). So a folder a call of T into ``tempfile`` made (its result,
or its result's ``name``: ``TemporaryDirectory``) is written as made (``dir``) by role,
``<tempfile#N>``; on replay that role is a name the replay draws afresh and the folder is
made under it. A later call into E that removed such a folder (the end of a
``TemporaryDirectory``'s ``with`` block, its ``cleanup``) writes it as ``gone``, so the
replay removes the folder it made. ``mkstemp`` refuses the boundary: it hands T an open
descriptor of the OS, which T writes through ``os`` and a transcript cannot stand for.

A ``shutil`` boundary copies, moves and removes files without T: each call of T into it is
bracketed by listings as a child process's is, over the test's temporary folder and the
folders ``tempfile`` made in E (``shutil.copytree`` into a ``TemporaryDirectory``).
"""

from __future__ import annotations

import base64
import os
import shutil
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 1 << 20
"""A bigger file written by E refuses the boundary (the transcript would carry it)."""

Listing = dict[str, tuple[int, int]]


def listing(root: str) -> Listing:
    """Every folder (size -1) and regular file below ``root``: (modification time, size).
    Sockets, pipes and links are left out (gpg's agent socket): not redone on replay."""
    found: Listing = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            found[os.path.join(folder, name)] = (0, -1)
        for name in files:
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                found[path] = (info.st_mtime_ns, info.st_size)
    return found


def changes(before: Listing, after: Listing, encode: Callable[[str], str]) -> list[list[str]]:
    """The effects between two listings, in an order that redoes them: folders first
    (shortest first), then files, then removals."""
    made = sorted((p for p, (_, size) in after.items() if size < 0 and p not in before), key=len)
    effects = [["dir", encode(p)] for p in made]
    for path, (mtime, size) in sorted(after.items()):
        if size >= 0 and before.get(path) != (mtime, size):
            if size > MAX_FILE_BYTES:
                raise ValueError(f"E wrote {path} ({size} bytes): too big for a transcript")
            data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
            effects.append(["file", encode(path), data])
    gone = sorted((p for p in before if p not in after), key=len)
    effects += [["gone", encode(p)] for p in gone]
    return effects


def redo(effects: list[list[str]], decode: Callable[[str], str]) -> None:
    """Redo recorded effects on this run's temporary folders."""
    for effect in effects:
        path = Path(decode(effect[1]))
        if effect[0] == "dir":
            path.mkdir(parents=True, exist_ok=True)
        elif effect[0] == "file":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(base64.b64decode(effect[2]))
        elif effect[0] == "made":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        elif path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


class Watch:
    """Brackets one call of T into E (capture): ``note`` writes the call's effects below
    ``roots``."""

    def __init__(self, roots: Sequence[str], encode: Callable[[str], str]) -> None:
        self.roots = list(roots)
        self.encode = encode
        self.before = self._listing()

    def _listing(self) -> Listing:
        found: Listing = {}
        for root in self.roots:
            found.update(listing(root))
        return found

    def note(self, event: dict[str, Any], result: Any = None) -> str | None:
        """Add the effects to ``event``; a refusal reason when they cannot be recorded."""
        try:
            effects = changes(self.before, self._listing(), self.encode)
        except (OSError, ValueError) as exc:
            return f"E changed the temporary folders: {exc}"
        if effects:
            event["fs"] = effects
        return None


DATABASE_FILE_SUFFIXES = ("", "-wal", "-shm", "-journal")
"""The files sqlite keeps for a database ``x.db``: ``x.db``, ``x.db-wal``, ..."""


class DatabaseFiles:
    """The files of the databases T opened through ``sqlite3.connect`` (paths as T gave
    them), and a ``FilesWatch`` over them for each call of T into E."""

    def __init__(self, encode: Callable[[str], str]) -> None:
        self.encode = encode
        self.paths: list[str] = []

    def watch(self, target: dict[str, Any], args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        if target.get("target") == "sqlite3.connect":
            database = database_path(args[0] if args else kwargs.get("database"), kwargs)
            if database is not None:
                made = [database + suffix for suffix in DATABASE_FILE_SUFFIXES]
                self.paths += [p for p in made if p not in self.paths]
        return FilesWatch(self.paths, self.encode) if self.paths else None


def database_path(database: Any, kwargs: dict[str, Any]) -> str | None:
    """The file a ``sqlite3.connect`` argument names (None: in memory, or not a path)."""
    if isinstance(database, bytes):
        database = os.fsdecode(database)
    elif isinstance(database, os.PathLike):
        database = os.fspath(database)
    if not isinstance(database, str) or database in ("", ":memory:"):
        return None
    if kwargs.get("uri"):
        if not database.startswith("file:"):
            return None
        database = database[len("file:") :].partition("?")[0]
        if database.startswith("//"):  # file://host/path: the path from its first slash
            database = database[database.find("/", 2) :]
        if database in ("", ":memory:"):
            return None
    return database


class FilesWatch:
    """Brackets one call of T into E: which of ``paths`` it made and removed."""

    def __init__(self, paths: list[str], encode: Callable[[str], str]) -> None:
        self.paths = list(paths)
        self.encode = encode
        self.before = [os.path.isfile(p) for p in self.paths]

    def note(self, event: dict[str, Any], result: Any = None) -> str | None:
        effects = []
        for path, existed in zip(self.paths, self.before, strict=True):
            exists = os.path.isfile(path)
            if exists != existed:
                effects.append(["made" if exists else "gone", self.encode(path)])
        if effects:
            event.setdefault("fs", []).extend(effects)
        return None


class TempFolders:
    """The folders ``tempfile`` made in E during one test (``made``), and a watch over each
    call of T into E: the folder a call into ``tempfile`` made, the made folders it removed."""

    def __init__(self, encode: Callable[[str], str]) -> None:
        self.encode = encode
        self.made: list[str] = []

    def watch(self, target: str) -> MadeFolder:
        return MadeFolder(self, target)


class MadeFolder:
    """Brackets one call of T into E for ``TempFolders``."""

    def __init__(self, folders: TempFolders, target: str) -> None:
        self.folders = folders
        self.target = target
        self.existing = [f for f in folders.made if os.path.isdir(f)]

    def note(self, event: dict[str, Any], result: Any = None) -> str | None:
        if self.target == "tempfile.mkstemp":
            return (
                "tempfile.mkstemp hands T an open file descriptor of the OS, which a transcript "
                "cannot stand for (use NamedTemporaryFile, or keep tempfile out of E)"
            )
        effects = event.setdefault("fs", [])
        for folder in self.existing:
            if not os.path.isdir(folder):
                effects.append(["gone", self.folders.encode(folder)])
                self.folders.made.remove(folder)
        if self.target.startswith("tempfile."):
            made = result if isinstance(result, str) else getattr(result, "name", None)
            if isinstance(made, str) and os.path.isdir(made):
                effects.append(["dir", self.folders.encode(made)])
                self.folders.made.append(made)
        if not effects:
            del event["fs"]
        return None


class _Watches:
    """Several watches over one call."""

    def __init__(self, watches: list[Any]) -> None:
        self.watches = watches

    def note(self, event: dict[str, Any], result: Any = None) -> str | None:
        reasons = [watch.note(event, result) for watch in self.watches]
        return next(filter(None, reasons), None)


FOLDER_CHANGING = frozenset({"subprocess", "shutil"})
"""Boundaries whose calls change files without T: a child process, ``shutil``'s copies."""

WatchMaker = Callable[[dict[str, Any], Sequence[Any], dict[str, Any]], Any]
"""For a recorder: the watch over one call of T into E (target, arguments), or None."""


def watch_for(boundaries: list[Any]) -> WatchMaker:
    """For a recorder: a watch per call of T over the test's temporary folders (pytest's,
    once known, and those ``tempfile`` made in E) when a boundary changes files without T
    (``FOLDER_CHANGING``), over the database files of a ``sqlite3`` boundary, and over the
    folders ``tempfile`` makes and removes."""
    from lsp_server.factoring.run_varying import TEMP_ROOT

    heads = {b.spec.split(".")[0] for b in boundaries}
    databases = DatabaseFiles(TEMP_ROOT.encode) if "sqlite3" in heads else None
    temporary = TempFolders(TEMP_ROOT.encode) if "tempfile" in heads else None
    changing = bool(heads & FOLDER_CHANGING)

    def make(target: dict[str, Any], args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        watches: list[Any] = []
        if changing:
            made = temporary.made if temporary is not None else []
            roots = [f for f in (TEMP_ROOT.current, *made) if f and os.path.isdir(f)]
            if roots:
                watches.append(Watch(roots, TEMP_ROOT.encode))
        if databases is not None:
            watches.append(databases.watch(target, args, kwargs))
        if temporary is not None:
            watches.append(temporary.watch(target.get("target") or ""))
        found = [w for w in watches if w is not None]
        if len(found) > 1:
            return _Watches(found)
        return found[0] if found else None

    return make
