"""Each Python file's analysis (``units.source_units``) kept across sessions, by content.

Analysing a file (parse, tokens, bindings, import-time proofs) costs milliseconds to a
quarter of a second (more-itertools' ``more.py``); loading the pickled result costs about
a millisecond. A session re-analysed every file its tests touched, changed or not.

One file per source path under ``.reks/analysis/``, replaced when the source changes, so
the folder never holds more entries than the project has files. An entry is used only
when it was made from the same bytes (raw hash) by the same analysis code (a digest of
reks's ``rts`` and ``project`` sources) under the same Python (its ``ast`` differs
between versions), the same installed distributions (``rts.library_names``) and the same
probe mode (``rts.probe_process``: probes off, a library's names stay unproved); anything
else, an unreadable entry included, is a miss and the file is analysed again. Entries
are written atomically: a killed run or two xdist workers at once leave a whole entry or
none. The store's folder is the project's own (``pytest`` runs the project's code
anyway), which is why unpickling what it holds adds no exposure.
"""

from __future__ import annotations

import functools
import pickle
from contextlib import suppress
from pathlib import Path

import xxhash

from lsp_server.project.files import STORE_DIR
from lsp_server.project.text import write_atomic
from lsp_server.rts.analysis_digest import ANALYSIS_DIR, analysis_code_digest
from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.installed_distributions import distributions_digest
from lsp_server.rts.probe_process import probing

_PROTOCOL = pickle.HIGHEST_PROTOCOL


class AnalysisCache:
    """The analyses of a project's files kept under ``<root>/.reks/analysis/``."""

    def __init__(self, root: Path) -> None:
        self.folder = Path(root) / STORE_DIR / ANALYSIS_DIR
        self.hits = 0
        self.misses = 0

    def _entry_path(self, path: str) -> Path:
        return self.folder / f"{xxhash.xxh3_64_hexdigest(path.encode())}.pickle"

    def get(self, path: str, raw_hash: str) -> FileUnits | None:
        """The analysis of ``path`` made from bytes with ``raw_hash``, if one is kept."""
        try:
            with open(self._entry_path(path), "rb") as handle:
                # The key first: an entry made by other code is never unpickled further.
                if pickle.load(handle) == _entry_key(path, raw_hash):
                    units = pickle.load(handle)
                    if isinstance(units, FileUnits):
                        self.hits += 1
                        return units
        except Exception:  # missing, or cut short: analyse again
            pass
        self.misses += 1
        return None

    def put(self, path: str, raw_hash: str, units: FileUnits) -> None:
        """Keep the analysis of ``path``; a folder that cannot be written is no error (the
        next session analyses the file again)."""
        data = pickle.dumps(_entry_key(path, raw_hash), _PROTOCOL) + pickle.dumps(units, _PROTOCOL)
        with suppress(OSError):
            write_atomic(self._entry_path(path), data)


def _entry_key(path: str, raw_hash: str) -> tuple[str, str, bool, str, str]:
    return (analysis_code_digest(), installed_digest(), probing(), path, raw_hash)


@functools.cache
def installed_digest() -> str:
    """The installed distributions' digest: an analysis proves names of installed
    libraries bound (``rts.library_names``), which holds only for those it ran against."""
    return distributions_digest()[0]


def cached_source_units(path: str, source: str) -> FileUnits:
    """``units.source_units`` memoized by text and probe mode in this process. A
    refactoring's files are parsed by the engine (to build its Provenance) and again by the
    REKS rules moments later, and most files are unchanged between two tasks. The result is
    shared: callers must not modify it."""
    return units_by_text(path, source, probing())


@functools.lru_cache(maxsize=256)
def units_by_text(path: str, source: str, probes: bool) -> FileUnits:
    """``units.source_units`` of ``source``, kept per text and probe mode (``probes``)."""
    from lsp_server.rts.units import source_units  # see ``kept_or_new_units``

    return source_units(path, source)


def kept_or_new_units(root: Path, path: str, data: bytes, raw_hash: str) -> FileUnits:
    """The analysis of ``path`` (bytes ``data``, raw hash ``raw_hash``) an earlier session
    kept (loading it costs a tenth of parsing a large file), else a new one, kept for the
    next session and shared with whoever parses the same text in this process."""
    # Imported here: the pytest worker imports this module (it keeps what it parses) and
    # must not pay for the analysis modules on its way to its first transformation.
    from lsp_server.rts.units import tokenize_decode

    kept = AnalysisCache(root)
    units = kept.get(path, raw_hash)
    if units is None:
        units = cached_source_units(path, tokenize_decode(data))
        kept.put(path, raw_hash, units)
    return units
