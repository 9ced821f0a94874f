"""One file rope fails on does not abort a whole refactoring.

rope renames file by file (``rope.refactor.rename.rename_in_module``); an internal error of
rope on one file (its token matcher fails on some constructs of files Python parses, for
example in a copy of the standard library) ends the whole task. Inside ``skipping_failures``
such a file is left unchanged and listed, like a file that cannot be parsed, unless it is
the file the refactoring was asked for (without it there is no refactoring to speak of).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any

from rope.base import exceptions as rope_exceptions
from rope.refactor import rename as rope_rename

from lsp_server.refactor.model import SkippedFile

_ORIGINAL = rope_rename.rename_in_module
_state = threading.local()


def _guarded_rename_in_module(occurrences_finder: Any, new_name: str, *args: Any, **kwargs: Any):
    try:
        return _ORIGINAL(occurrences_finder, new_name, *args, **kwargs)
    except (rope_exceptions.InterruptedTaskError, KeyboardInterrupt, MemoryError):
        raise
    except Exception as exc:
        resource = kwargs.get("resource", args[0] if args else None)
        skipped: list[SkippedFile] | None = getattr(_state, "skipped", None)
        path = getattr(resource, "real_path", None)
        if skipped is None or path is None or os.path.realpath(path) == _state.own_path:
            raise
        reason = f"rope failed on it ({type(exc).__name__}: {exc})"
        skipped.append(SkippedFile(os.path.realpath(path), reason))
        return None


@contextlib.contextmanager
def skipping_failures(own_path: str) -> Iterator[list[SkippedFile]]:
    """Within: a file other than ``own_path`` that rope fails on is skipped and added to
    the list yielded. On the calling (worker) thread only."""
    rope_rename.rename_in_module = _guarded_rename_in_module
    _state.skipped, _state.own_path = [], os.path.realpath(own_path)
    try:
        yield _state.skipped
    finally:
        _state.skipped = None
