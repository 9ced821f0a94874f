"""Project functions alive before the tracer starts.

The tracer sees a code object once its module (or string) is executed after it started (the
``exec`` audit event). Code that ran before, such as a project module imported as a ``-p`` or
entry-point plugin while pytest parsed its options, is reachable only through the functions
built from it, found by walking the heap: 80,000 objects in a test process, some 50 ms of
each session's start. The walk is needed only when a project module is imported: in most
sessions none is at the start, and then it is skipped. (Before 3.12 the markers' tracer is
chosen only when no project module is imported, ``rts.tracer_choice``: its walk is skipped
always, and a project module imported already gets the profile hook, which sees all code.)

Assumed, and not looked for: project functions alive although no project module is in
``sys.modules``, as when a plugin compiled a project file by a bare ``exec`` before pytest
started or took its module out of ``sys.modules`` while keeping its functions.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from types import FunctionType


def project_functions_alive(is_project_file: Callable[[str], bool]) -> list[FunctionType]:
    """The functions alive now whose code comes from a project file (``is_project_file`` of
    a ``co_filename``; asked once per module file too, so it should cache its answers)."""
    if not any_project_module(is_project_file):
        return []
    return [
        obj
        for obj in gc.get_objects()
        if type(obj) is FunctionType and is_project_file(obj.__code__.co_filename)
    ]


def any_project_module(is_project_file: Callable[[str], bool]) -> bool:
    """Whether a project module is imported already."""
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        if isinstance(filename, str) and is_project_file(filename):
            return True
    return False
