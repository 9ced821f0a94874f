"""Current state of project files: raw hashes and unit checksums, computed once per file.

Reading and hashing a file's bytes is cheap; tokenizing and parsing it is not. Callers
ask for the raw hash first and only ask for the unit checksums of files whose raw hash
differs from the stored one.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from lsp_server.project.files import is_python
from lsp_server.rts.analysis_cache import AnalysisCache
from lsp_server.rts.collector_pause import collector_paused
from lsp_server.rts.directory_listings import listing_digest
from lsp_server.rts.file_snapshot import FileSnapshot, file_checksum
from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.tokens import SourceError
from lsp_server.rts.unit_names import FILE, MODULE, NAMES


class _EveryName(Mapping[str, str]):
    """The checksums of the ``NAMES`` pseudo file: every name is there, unchanging."""

    def __getitem__(self, name: str) -> str:
        return ""

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str)


_NAMES_ENTRY_HASH = "names"


@dataclass
class _Entry:
    stat: tuple[int, int]
    data: bytes | None
    raw_hash: str
    snapshot: FileSnapshot | None = None
    units: FileUnits | None = None


class FileStates:
    """Per-run cache of file states keyed by root-relative POSIX path.

    ``revalidate``: re-stat on every access and recompute when mtime or size changed (for a
    long-lived process such as the language server). Without it the first state seen is
    kept for the whole run, which is what the recorder wants: the checksum recorded for a
    test is the one of the code it ran, even if the file is edited while tests run.
    """

    def __init__(
        self,
        root: Path,
        *,
        revalidate: bool = False,
        overlays: Mapping[str, str] | None = None,
        analyses: AnalysisCache | None = None,
    ) -> None:
        self.root = Path(root)
        self.analyses = analyses
        """Where the analyses of unchanged files are kept between sessions (the recorder's
        states); without it each file is analysed once per ``FileStates``."""
        self.revalidate = revalidate
        self.overlays = dict(overlays or {})
        """Root-relative path -> text of files whose current state is not on disk yet (an
        editor's unsaved buffers): that text is the file's state."""
        self._entries: dict[str, _Entry | None] = {}

    def _entry(self, path: str) -> _Entry | None:
        if path in self._entries and not self.revalidate:
            return self._entries[path]
        if path == NAMES:
            snapshot = FileSnapshot(NAMES, _NAMES_ENTRY_HASH, _EveryName())
            entry = _Entry(stat=(0, 0), data=None, raw_hash=_NAMES_ENTRY_HASH, snapshot=snapshot)
            self._entries[path] = entry
            return entry
        if path in self.overlays:
            data = self.overlays[path].encode("utf-8")
            entry = _Entry(stat=(-1, len(data)), data=data, raw_hash=file_checksum(data))
            self._entries[path] = entry
            return entry
        absolute = os.path.join(self.root, path)
        try:
            st = os.stat(absolute)
        except OSError:
            self._entries[path] = None
            return None
        key = (st.st_mtime_ns, st.st_size)
        cached = self._entries.get(path)
        if cached is not None and cached.stat == key:
            return cached
        if stat.S_ISDIR(st.st_mode):  # a folder a test listed: ``rts.directory_listings``
            listing = listing_digest(absolute)
            listed = None if listing is None else _Entry(stat=key, data=b"", raw_hash=listing)
            self._entries[path] = listed
            return listed
        try:
            with open(absolute, "rb") as fh:
                data = fh.read()
        except OSError:  # a permission problem, or gone since stat
            self._entries[path] = None
            return None
        entry = _Entry(stat=key, data=data, raw_hash=file_checksum(data))
        self._entries[path] = entry
        return entry

    def raw_hash(self, path: str) -> str | None:
        """Hash of the file's bytes, None if the file does not exist."""
        entry = self._entry(path)
        return None if entry is None else entry.raw_hash

    def snapshot(self, path: str) -> FileSnapshot | None:
        """Checksums of every unit of the file, None if it does not exist. A Python file that
        does not parse gets a module checksum derived from its bytes and ``error`` set."""
        entry = self._entry(path)
        if entry is None:
            return None
        if entry.snapshot is None:
            self._compute(path, entry)
        return entry.snapshot

    def units(self, path: str) -> FileUnits | None:
        """The parsed units (with spans) of a Python file; None if missing or unparsable."""
        entry = self._entry(path)
        if entry is None:
            return None
        if entry.snapshot is None:
            self._compute(path, entry)
        return entry.units

    def _compute(self, path: str, entry: _Entry) -> None:
        data = entry.data or b""
        if not is_python(path):
            entry.snapshot = FileSnapshot(path, entry.raw_hash, {FILE: entry.raw_hash})
        else:
            try:
                units = self._analyse(path, entry.raw_hash, data)
            except (SourceError, SyntaxError, UnicodeDecodeError) as exc:
                entry.snapshot = FileSnapshot(
                    path, entry.raw_hash, {MODULE: f"unparsable-{entry.raw_hash}"}, str(exc)
                )
            else:
                entry.units = units
                # ``FILE``: the whole text, as a test reading the file sees it
                # (``rts.source_file_reads``).
                checksums = {**units.checksums, FILE: entry.raw_hash}
                entry.snapshot = FileSnapshot(path, entry.raw_hash, checksums)
        entry.data = None  # the bytes are no longer needed once hashed and parsed

    def _analyse(self, path: str, raw_hash: str, data: bytes) -> FileUnits:
        """``source_units`` of the bytes, from the kept analyses when they hold them (an
        overlay's text too: the key is the hash of the bytes analysed)."""
        kept = None if self.analyses is None else self.analyses.get(path, raw_hash)
        if kept is not None:
            return kept
        # Imported on a miss only: the analysis is ~40 modules that a pytest worker's
        # recorder, which finds every file it needs kept, would import at each start (and
        # that freezegun would scan at each ``freeze_time``).
        from lsp_server.rts.units import source_units, tokenize_decode

        with collector_paused():  # it builds and drops a tree of the file: no cycles
            units = source_units(path, tokenize_decode(data))
        if self.analyses is not None:
            self.analyses.put(path, raw_hash, units)
        return units
