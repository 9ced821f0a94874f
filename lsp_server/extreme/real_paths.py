"""The real path of each file code comes from, resolved once per worker process.

Preparing a worker resolved the file of every imported module three times (which targets
are imported, the index of live functions, the recorder's map of files to units): about
1,200 ``os.path.realpath`` calls, each checking every component for a symbolic link, a
third of the preparation's CPU time on more-itertools. Standard library only.
"""

from __future__ import annotations

import functools
import os


@functools.cache
def real_path(path: str) -> str:
    """``os.path.realpath(path)``; a file's real path does not change during an analysis."""
    return os.path.realpath(path)
