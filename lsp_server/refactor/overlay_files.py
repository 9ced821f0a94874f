"""rope's side of a ``RopeWorkspace``: its file access through the editor buffers, and
the opening of its rope project. Imported only when a workspace first opens its project
(in the rope worker process): the language server keeps workspaces for their buffers and
never imports rope (issue 15: a tenth of a second of its start-up)."""

from __future__ import annotations

import os
import threading

from rope.base.fscommands import FileSystemCommands
from rope.base.project import Project

from lsp_server.refactor.file_cache import FileCache
from lsp_server.refactor.rope_scopes import install as install_rope_scopes

install_rope_scopes()


class OverlayCommands(FileSystemCommands):
    """rope's file access with editor buffers taking precedence over the disk."""

    def __init__(
        self, root: str, overlays: dict[str, str], lock: threading.Lock, files: FileCache
    ) -> None:
        self._root = root + os.sep
        self._overlays = overlays
        self._lock = lock
        self._files = files

    def read(self, path: str) -> str | bytes:
        # rope takes text as well as bytes: text decoded here in the file's own encoding
        # keeps rope from decoding a BOM into the source or a buffer's text as latin-1.
        real = self._real(path)
        with self._lock:
            text = self._overlays.get(real)
        if text is not None:
            return text
        text = self._files.read_text(real)
        return text if text is not None else self._files.read_bytes(real)

    def _real(self, path: str) -> str:
        # rope's paths are below the (real) root: resolving every one costs a stat per
        # path component, for every file a rename searches.
        return path if path.startswith(self._root) else os.path.realpath(path)


def open_project(
    root: str,
    overlays: dict[str, str],
    lock: threading.Lock,
    files: FileCache,
    ignored: list[str],
) -> Project:
    """The rope project of ``root``, reading ``overlays`` (guarded by ``lock``) first."""
    return Project(
        root,
        fscommands=OverlayCommands(root, overlays, lock, files),
        ropefolder=None,
        ignored_resources=ignored,
        # No object database and no static analysis on change: they make the
        # first refactoring slow and write into the user's project.
        save_objectdb=False,
        automatic_soa=False,
        perform_doa=False,
        validate_objectdb=False,
    )
