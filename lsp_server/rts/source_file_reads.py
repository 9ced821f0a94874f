"""Which ``.py`` files a test reads as text by their names.

A test opening a project module's file (``open(m.__file__)``, ``Path.read_text``) or asking
``linecache`` for its lines from its own code sees the whole text, whatever code of the
module ran: a comment or a local renamed in a function it never called changes what it
reads, and no unit of the code that ran tells (``linecache.getlines(parser.__file__)``
read nothing of ``parser`` but its file). Such a test depends on the file's ``FILE`` unit
(the hash of its bytes: ``rts.snapshots``).

Not every ``.py`` opened in a test is read as text by it: the import system opens a
module's source to compile it (what it runs is told by the units of the code that ran),
and a library reading the lines of code (``inspect``, ``traceback``: through ``linecache``)
reads what the rules of ``lookups.SOURCE_TEXT_READS`` account for. ``linecache`` answers
from its cache without opening the file again, so its lookups are watched at the call:
``getline``/``getlines`` called from code outside the standard library and the site
directories (the test's, the project's) note the file asked for.
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
import sysconfig
from collections.abc import Callable
from types import FrameType
from typing import Any

from lsp_server.rts.calling_code import runs_code_of

_PATHS = sysconfig.get_paths()
_LIBRARY_DIRS = tuple(
    sorted(
        {
            os.path.join(os.path.realpath(_PATHS[key]), "")
            for key in ("stdlib", "platstdlib", "purelib", "platlib")
            if key in _PATHS
        }
    )
)
_RUNNERS = ("<frozen importlib", "<frozen runpy")
_READERS = (
    os.path.join("_pytest", "assertion", "rewrite.py"),
    os.sep + "runpy.py",
    linecache.__file__,
)
"""Readers of a source that compile it to run it (the import system, pytest's assertion
rewriter, ``runpy``: frozen in 3.11+) or fill ``linecache``."""
_FRAMES_SEEN = 4
"""How far up from ``open`` a reader of code sits: ``tokenize.open`` under
``linecache.updatecache``, ``pathlib``'s two frames under pytest's assertion rewriter."""


@functools.cache  # asked at every ``getline`` of a ``.py``: tracebacks, warnings
def _library_code(filename: str) -> bool:
    return filename.startswith("<") or os.path.realpath(filename).startswith(_LIBRARY_DIRS)


def opened_as_code(frame: FrameType | None) -> bool:
    """Whether the ``open`` whose caller is ``frame`` reads a source to run it or for
    ``linecache``."""
    return runs_code_of(frame, _FRAMES_SEEN, _RUNNERS, _READERS)


class LinecacheWatch:
    """``linecache.getline``/``getlines`` replaced while a watcher is active: a call from
    code outside the libraries hands the file name it asks for to ``note``."""

    def __init__(self) -> None:
        self._originals: dict[str, Callable[..., Any]] = {}

    def start(self, note: Callable[[str], None]) -> None:
        if self._originals:
            return
        for name in ("getline", "getlines"):
            original = getattr(linecache, name)
            self._originals[name] = original
            setattr(linecache, name, _watched(original, note))

    def stop(self) -> None:
        for name, original in self._originals.items():
            setattr(linecache, name, original)
        self._originals.clear()


def _watched(original: Callable[..., Any], note: Callable[[str], None]) -> Callable[..., Any]:
    @functools.wraps(original)
    def watched(filename: Any, *args: Any, **kwargs: Any) -> Any:
        caller = sys._getframe(1).f_code.co_filename
        if isinstance(filename, str) and filename.endswith(".py") and not _library_code(caller):
            note(filename)
        return original(filename, *args, **kwargs)

    return watched
