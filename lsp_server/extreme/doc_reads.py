"""Transformed runs that may have read docstrings, and so depend on them.

A function's checksum is its body and header; its docstring is a unit of its own
(``rts.units.DOC``), outside its file's top level, so an edit of a docstring alone reaches
only the runs that depend on it. A test can read a docstring without calling the function
(``f.__doc__``, ``inspect.getdoc(f)``): when code a run executed is in a file that names one
of ``rts.lookups.DOC_READS``, the run depends on the docstrings of every project file
(``DOCSTRINGS``, one pseudo-unit per file). Which docstring it read is not recorded, so all
count; runs that read docstrings are few.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from lsp_server.project import python_files
from lsp_server.rts.lookups import DOC_READS

DOCSTRINGS = "<docstrings>"
"""The pseudo-unit of a file's function docstrings (``state.Checksums`` hashes them)."""

_NAMES = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in sorted(DOC_READS)) + r")\b")


class DocReads:
    """What a worker over the project at ``root`` knows of docstring reads, cached."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._reads: dict[str, bool] = {}  # file -> it names a way to read docstrings
        self._files: list[str] | None = None

    def reads(self, rel: str) -> bool:
        if rel not in self._reads:
            try:
                text = (Path(self.root) / rel).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            self._reads[rel] = _NAMES.search(text) is not None
        return self._reads[rel]

    def units(self, executed: Iterable[str]) -> set[str]:
        """The ``DOCSTRINGS`` units a run that executed ``executed`` depends on."""
        files = {unit.partition("::")[0] for unit in executed}
        if not any(self.reads(rel) for rel in files):
            return set()
        if self._files is None:
            root = Path(self.root)
            self._files = [p.relative_to(root).as_posix() for p in python_files(root)]
        return {f"{rel}::{DOCSTRINGS}" for rel in self._files}


_BY_ROOT: dict[str, DocReads] = {}


def doc_reads(root: str) -> DocReads:
    """The worker's ``DocReads`` of ``root`` (one per process, kept for its life)."""
    if root not in _BY_ROOT:
        _BY_ROOT[root] = DocReads(root)
    return _BY_ROOT[root]
