"""The bytecode analyses of code objects kept across recording sessions, by content.

The tracer and the attribution analyse every project code object that runs
(``reads.code_reads``, ``read_lines.read_lines``, ``lookup_sites.lookup_sites``: names read,
lines spelling a read, lookup call sites), some of them twice, and a session redid all of
it although the code had not changed: a third of a second on jinja's warm run.

Each analysis is a function of the code object alone (its bytecode, constants, names,
lines and nested code objects), of reks's code and of the Python version. An answer is
kept under the digest of the code object's ``marshal`` form (every field of the code
object, nested ones included: any change of the code is another key), in one file of the
store's ``analysis`` folder whose header is ``analysis_code_digest()`` (reks's recording
code and the Python version: any change of those and the whole file is ignored). A key
that is not there, an unreadable file or a code object ``marshal`` refuses is a miss: the
code is analysed as before. Answers are used only between ``open_session`` and
``close_session`` (a recording process); elsewhere (the language server, the analysis of
files) the functions run as they are.
"""

from __future__ import annotations

import functools
import marshal
import pickle
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from types import CodeType
from typing import TypeVar

import xxhash

from lsp_server.project.files import STORE_DIR
from lsp_server.project.text import write_atomic
from lsp_server.rts.analysis_digest import ANALYSIS_DIR, analysis_code_digest
from lsp_server.rts.identity import identity

KEPT_FILE = "code-analyses.kept"
_MARSHAL_VERSION = 2
"""Before version 3, ``marshal`` writes no back references, whose presence depends on
reference counts: the same code gives the same bytes in every session."""
_KEEP_UNUSED = 20_000
"""Answers no code of the session asked for that are kept all the same (a session that ran
a few tests keeps what a full one found), up to this many; beyond, only the used ones."""

Result = TypeVar("Result")


class KeptCodeAnalyses:
    """The answers of one recording process: loaded from and saved to its store."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self._answers: dict[bytes, object] = {}
        self._used: set[bytes] = set()
        self._added = False
        # By identity: (the code, kept alive so that its identity stays its own; its digest).
        self._digests: dict[int, tuple[CodeType, bytes | None]] = {}
        self.hits = 0
        self.misses = 0

    def open_session(self, root: Path) -> None:
        """Use (and later save) the answers kept in ``root``'s store."""
        self.folder = Path(root) / STORE_DIR / ANALYSIS_DIR
        self._answers = _read(self.folder / KEPT_FILE)
        self._used.clear()
        self._added = False
        self.hits = self.misses = 0

    def close_session(self) -> None:
        """Save what this session found (when it found anything new), and stop keeping."""
        folder, self.folder = self.folder, None
        if folder is not None and self._added:
            answers = {**_read(folder / KEPT_FILE), **self._answers}
            unused = answers.keys() - self._used
            if len(unused) > _KEEP_UNUSED:
                answers = {key: answers[key] for key in self._used}
            header = pickle.dumps(analysis_code_digest(), pickle.HIGHEST_PROTOCOL)
            with suppress(OSError):  # a folder that cannot be written: analysed next time
                write_atomic(folder / KEPT_FILE, header + pickle.dumps(answers, -1))
        self._answers, self._digests = {}, {}
        self._used.clear()

    def answer(self, kind: str, code: CodeType, analyse: Callable[[CodeType], Result]) -> Result:
        """``analyse(code)``, kept under ``kind`` and the code's content."""
        if self.folder is None:
            return analyse(code)
        digest = self._digest(code)
        if digest is None:
            return analyse(code)
        key = kind.encode() + b"\0" + digest
        self._used.add(key)
        if key in self._answers:
            self.hits += 1
            return self._answers[key]  # type: ignore[return-value]
        self.misses += 1
        found = self._answers[key] = analyse(code)
        self._added = True
        return found

    def _digest(self, code: CodeType) -> bytes | None:
        known = self._digests.get(identity(code))
        if known is None:
            try:
                content = marshal.dumps(code, _MARSHAL_VERSION)
            except ValueError:  # a constant marshal cannot write: not kept
                known = (code, None)
            else:
                known = (code, xxhash.xxh3_128_digest(content))
            self._digests[identity(code)] = known
        return known[1]


def _read(path: Path) -> dict[bytes, object]:
    """The answers ``path`` holds, if the same recording code under the same Python wrote
    them; else none. The store's folder is the project's own, as for ``AnalysisCache``."""
    try:
        with open(path, "rb") as handle:
            if pickle.load(handle) == analysis_code_digest():
                answers = pickle.load(handle)
                if isinstance(answers, dict):
                    return answers
    except Exception:  # missing, cut short, or written by other code: analyse again
        pass
    return {}


KEPT = KeptCodeAnalyses()
"""The recording process's answers (one session at a time records in a process)."""


def kept_by_content(analyse: Callable[[CodeType], Result]) -> Callable[[CodeType], Result]:
    """``analyse``, its answers kept by the content of the code (``KEPT``)."""
    kind = f"{analyse.__module__}.{analyse.__qualname__}"

    @functools.wraps(analyse)
    def kept(code: CodeType) -> Result:
        return KEPT.answer(kind, code, analyse)

    return kept
