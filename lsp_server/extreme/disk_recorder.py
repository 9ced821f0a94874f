"""What a plain pytest run on disk executed: a pytest plugin (``-p
lsp_server.extreme.disk_recorder``) that the private copy's runs load before the project is
imported, so the record covers import, collection and the tests.

Each unit is appended to the file named by ``UNITS_ENV`` the first time it runs, so a run
killed at its timeout still leaves what it reached. With that record a verdict taken on
disk is kept after an edit by the rule every other verdict follows (see ``reuse``).
The files of the copy a test writes are kept before their first write
(``project_originals``), for the copy to put back after the run.

The files' units come from the project's kept analyses (``ANALYSES_ENV``: the copy has
none), read only: an analysis is kept for the bytes it was made from, so every file but
the rewritten one is found there; parsing them all again took more-itertools and
cachetools a second or two per run.
"""

from __future__ import annotations

import os
from pathlib import Path

from lsp_server.extreme.execution_recorder import Recorder
from lsp_server.extreme.project_writes import ProjectWrites
from lsp_server.rts.analysis_cache import AnalysisCache
from lsp_server.rts.file_units import FileUnits

UNITS_ENV = "REKS_DISK_UNITS"
ROOT_ENV = "REKS_DISK_ROOT"
ANALYSES_ENV = "REKS_DISK_ANALYSES"
"""The root of the project the copy was made from (whose kept analyses are read)."""


class KeptAnalyses(AnalysisCache):
    """A project's kept analyses, never written: the rewritten file's analysis would
    replace its original's there."""

    def put(self, path: str, raw_hash: str, units: FileUnits) -> None:
        return None


def _start() -> Recorder | None:
    path, root = os.environ.pop(UNITS_ENV, ""), os.environ.pop(ROOT_ENV, "")
    project = os.environ.pop(ANALYSES_ENV, "")
    if not path or not root:
        return None
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def write(unit: str) -> None:
        os.write(fd, (unit + "\n").encode("utf-8", "surrogateescape"))

    analyses = KeptAnalyses(Path(project)) if project else None
    recorder = Recorder(root, returns=False, sink=write, analyses=analyses)
    recorder.start()
    ProjectWrites(root).arm()  # each file of the copy a test writes kept first (``on_disk``)
    return recorder


RECORDER = _start()  # at import: ``-p`` plugins load before conftest files and test modules


def read_units(path: str) -> list[str]:
    """The units a run recorded in ``path`` (none when it recorded nothing)."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as units:
            return sorted({line.strip() for line in units if line.strip()})
    except OSError:
        return []
