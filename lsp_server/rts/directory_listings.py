"""Folders a test lists, and a folder's listing as a unit.

A test walking a package (``pkgutil.iter_modules``), globbing a data folder or iterating a
``Path`` sees which files are there: a module file nobody imports added, a data file
removed, changes what it lists while no unit changes. The ``os.listdir`` and ``os.scandir``
audit events (every listing in Python goes through one) name the folder; a project folder
listed in a test makes it depend on that folder's ``FILE`` unit, whose checksum is the
digest of its sorted entry names (``listing_digest``; ``rts.snapshots``), so an edit of a
file's bytes is no change of the listing.

The import system lists a package's folder to find a module (``FileFinder`` fills its cache
on the first import from a folder) and ``importlib.metadata`` lists ``sys.path`` to find
distributions: neither is the test's listing (what an import finds is told by the units of
what it ran and by the import footprints). Nor is a tool's folder (``.pytest_cache``,
``.git``, reks's store: ``project.files.EXCLUDED_DIRS``), listed by a test walking the
project's root: its files are no project code, and the tools rewrite or clean it away at
every run or checkout, so each would select every test walking the root and every test
listing the session's state (boltons' ``iter_find_files`` and ``gc.get_objects`` tests).
"""

from __future__ import annotations

import os
from types import FrameType

from lsp_server.project.files import is_excluded_dir
from lsp_server.rts.calling_code import runs_code_of
from lsp_server.rts.file_snapshot import file_checksum

LISTING_EVENTS = frozenset(["os.listdir", "os.scandir"])
_FINDERS = ("<frozen importlib",)
_FINDER_PARTS = (os.path.join("importlib", "metadata"),)
_FRAMES_SEEN = 4
"""How far up from the listing a finder of modules sits (``importlib.metadata``'s path
objects list through two frames of their own)."""


def listed_by_import_system(frame: FrameType | None) -> bool:
    """Whether the listing whose caller is ``frame`` finds modules or distributions."""
    return runs_code_of(frame, _FRAMES_SEEN, _FINDERS, _FINDER_PARTS)


def event_path(path: object) -> str | None:
    """The absolute path an audit event names (None for a file descriptor or a value that
    is no path): the ``open`` and listing events give what the caller passed."""
    if isinstance(path, int):
        return None
    try:
        return os.path.abspath(os.fsdecode(path))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def listed_folder(args: tuple[object, ...]) -> str | None:
    """The absolute path of the folder an ``os.listdir``/``os.scandir`` event lists (None
    for a folder given by descriptor, or a tool's folder: its name excluded anywhere;
    ``build`` and the other root-only names still count, the root being unknown here)."""
    path = args[0] if args else None
    folder = os.path.abspath(os.curdir) if path is None else event_path(path)
    if folder is None or is_excluded_dir(os.path.basename(folder)):
        return None
    return folder


def listing_digest(folder: str) -> str | None:
    """The checksum of a folder's listing (its sorted entry names); None when it cannot be
    listed."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return None
    return file_checksum("\n".join(names).encode("utf-8", "surrogateescape"))
