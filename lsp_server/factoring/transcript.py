"""The transcript file: a readable, versioned JSON record of one captured test, with the
checksums of E's code so that a transcript of code that no longer exists is never replayed."""

from __future__ import annotations

import json
import os
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_server.factoring.boundary import Boundary
from lsp_server.factoring.run_varying import TEMP_MARK
from lsp_server.project.text import write_json_atomic

FORMAT = "reks-factoring-transcript"
VERSION = 5
"""2: a copy of the inherited environment is written as its changes (``$environ``).
3: an event's ``fs`` effects may hold ``made`` (a database file E made, redone empty): a
reader of version 2 would take it for a removal.
4: a folder ``tempfile`` made in E is a ``dir`` effect, and a ``<tempfile#N>`` name E drew is
answered by a fresh name: version 3 held neither, so its replay of ``mkdtemp`` named the
capture's folder, which no longer exists.
5: ``t_clock`` says whether T reads the real wall clock on replay or one pinned to the
capture's moment (``clock_at_start``): a reader of version 4 would replay a pinned test
against the real clock, and it would fail once time passed."""
CLOCK_REAL = "real"
CLOCK_PINNED = "capture"
"""``t_clock``: T's wall clock on replay is the real one, or (``reks factor --clock-in-e``)
the capture's moment at the test's start, running on from there (``wall_clock.pin``)."""
_MAX_PACKAGE_FILES = 3000
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
"""The largest transcript reks keeps (``reks factor --max-transcript-mb``): past it the
partition is bad (the paper's huge transcripts: a boundary crossed so often that the
transcript is no longer a readable file and its replay bookkeeping costs what E did)."""


class TranscriptError(ValueError):
    """Not a transcript this version of reks can replay."""


def load(path: str | Path) -> dict[str, Any]:
    """The transcript at ``path``; ``uses_tmp_path`` (not stored) tells whether any value in
    it lies under pytest's temporary directory."""
    text = Path(path).read_text(encoding="utf-8")
    data = json.loads(text)
    if data.get("format") != FORMAT:
        raise TranscriptError(f"{path}: not a reks transcript")
    if data.get("version") != VERSION:
        raise TranscriptError(
            f"{path}: transcript version {data.get('version')}, reks reads {VERSION}"
        )
    data["uses_tmp_path"] = TEMP_MARK in text
    return data


def save(path: str | Path, data: dict[str, Any]) -> None:
    write_json_atomic(path, data, indent=1)


def pin_clock(path: str | Path) -> None:
    """Make the transcript at ``path`` replay T's wall clock from the capture's moment."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    data["t_clock"] = CLOCK_PINNED
    save(path, data)


def size_refusal(data: dict[str, Any], limit: int) -> str | None:
    """Why a transcript is too big to keep (None when it is within ``limit`` bytes): its
    size as it would be saved, with the number of recorded interactions."""
    size = len(json.dumps(data, indent=1).encode("utf-8"))
    if size <= limit:
        return None
    return (
        f"the transcript would be {show_size(size)} ({len(data.get('events', ()))} recorded "
        f"interactions), over the limit of {show_size(limit)}: the test crosses this boundary "
        "too often; choose a coarser boundary or raise the limit (--max-transcript-mb)"
    )


def show_size(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    return f"{size / 1024:.1f} kB"


def python_version() -> str:
    return ".".join(str(part) for part in sys.version_info[:3])


def environment_files(boundaries: list[Boundary], root: Path) -> list[Path]:
    """The files holding E's code: each boundary module (a package: its Python files), and the
    files of the modules E's exported functions and classes come from (``_sqlite3``)."""
    found: dict[str, Path] = {}
    for boundary in boundaries:
        module_file = getattr(boundary.module, "__file__", None)
        if module_file:
            found[module_file] = Path(module_file)
        package_dirs = getattr(boundary.module, "__path__", None) if boundary.cls is None else None
        for folder in package_dirs or ():
            for file in sorted(Path(folder).rglob("*.py"))[:_MAX_PACKAGE_FILES]:
                found[str(file)] = file
        for _, value in boundary.members():
            owner = sys.modules.get(getattr(value, "__module__", "") or "")
            owner_file = (
                getattr(owner, "__file__", None) if isinstance(owner, types.ModuleType) else None
            )
            if owner_file:
                found[owner_file] = Path(owner_file)
    return [found[key] for key in sorted(found)]


def _key(file: Path, root: Path) -> str:
    try:
        return file.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(file.resolve())


UNHASHED = "<unhashed>"
"""The one unit of a file whose checksums the capturing interpreter could not compute (it
lacks reks's own dependencies); its value lists the boundary classes. reks hashes the file
itself after the capture (``hash_unhashed``); on a staleness check such a file counts as
changed when its size or time changed."""


def _units_of(file: Path, boundary_classes: list[str]) -> dict[str, str]:
    try:  # only when a file changed since capture, or at capture
        from lsp_server.rts import units as rts_units
    except ImportError:  # the project's interpreter lacks xxhash: see UNHASHED
        return {UNHASHED: ",".join(boundary_classes)}
    try:
        units = rts_units.path_units(file.parent, file)
    except (OSError, rts_units.SourceError) as exc:
        return {"<unreadable>": str(exc)}
    checksums = dict(units.checksums)
    if boundary_classes and file.suffix in (".py", ".pyw"):
        # A class boundary: that class's methods and the module part (its class body).
        keep = {
            name: value
            for name, value in checksums.items()
            if name == rts_units.MODULE or any(name.startswith(c + ".") for c in boundary_classes)
        }
        return keep or checksums
    return checksums


def environment_checksums(boundaries: list[Boundary], root: Path) -> dict[str, Any]:
    """What E was when the transcript was captured: Python's version and the unit checksums
    (``rts.units``) of E's files."""
    files, stats = {}, {}
    for file in environment_files(boundaries, root):
        own = [
            b.cls.__qualname__
            for b in boundaries
            if b.cls is not None and getattr(b.module, "__file__", None) == str(file)
        ]
        files[_key(file, root)] = _units_of(file, own)
        stats[_key(file, root)] = _stat(file)
    return {"python": python_version(), "files": files, "stats": stats}


def _stat(file: Path) -> list[int]:
    """Size and modification time: a file that kept both is not read again on replay."""
    info = file.stat()
    return [info.st_size, info.st_mtime_ns]


def hash_unhashed(data: dict[str, Any], root: Path) -> None:
    """Fill in, in reks's own interpreter, the checksums of the files that the capturing
    interpreter left ``UNHASHED``; the files are the ones captured (run just now)."""
    files = data.get("environment", {}).get("files", {})
    for key, checksums in files.items():
        if UNHASHED in checksums:
            file = Path(key) if Path(key).is_absolute() else root / key
            owners = [name for name in checksums[UNHASHED].split(",") if name]
            files[key] = _units_of(file, owners)


@dataclass(frozen=True)
class Staleness:
    """Why a transcript no longer describes E (empty: still valid)."""

    changes: tuple[str, ...]

    @property
    def stale(self) -> bool:
        return bool(self.changes)

    def reason(self) -> str:
        shown = ", ".join(self.changes[:5])
        more = f" and {len(self.changes) - 5} more" if len(self.changes) > 5 else ""
        return f"E changed since capture: {shown}{more}"


def staleness(data: dict[str, Any], root: Path) -> Staleness:
    """Compare the recorded environment with E's code as it is now."""
    recorded = data.get("environment", {})
    changes: list[str] = []
    if recorded.get("python") != python_version():
        changes.append(f"Python {recorded.get('python')} -> {python_version()}")
    stats = recorded.get("stats", {})
    for key, old in recorded.get("files", {}).items():
        name = key if os.path.isabs(key) else os.path.join(root, key)
        try:  # one stat, plain strings: every factored test checks some fifty files
            info = os.stat(name)
        except OSError:
            changes.append(f"{key} (removed)")
            continue
        if stats.get(key) == [info.st_size, info.st_mtime_ns]:
            continue
        now = _units_of(Path(name), [])
        for unit, checksum in old.items():
            if now.get(unit) != checksum:
                changes.append(f"{key}::{unit}" if not unit.startswith("<") else key)
    return Staleness(tuple(changes))
