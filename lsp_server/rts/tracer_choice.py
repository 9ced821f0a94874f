"""The tracer for the running Python: ``sys.monitoring`` on 3.12+ (``rts.tracing``); before,
project modules compiled with markers (``rts.instrumented_tracer``) when none of them is
imported yet, else a profile hook (``rts.profile_tracer``: code compiled already has no
markers). ``REKS_TRACER`` in the environment asks for one: ``profile`` for the profile hook
(a project whose own import hooks do not chain with reks's loader; ``bench/tracer_stores.py``
compares the two), ``instrumented`` for the markers on any Python (tests run it on 3.12)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from lsp_server.rts.instrumented_tracer import InstrumentedTracer
from lsp_server.rts.profile_tracer import ProfileTracer
from lsp_server.rts.tracing import CodeTracer, MonitoringTracer


def new_tracer(is_project_file: Callable[[str], bool]) -> CodeTracer:
    """The tracer for this Python; ``is_project_file(co_filename)`` says whose code counts
    (the profile hook sees everything and leaves the choice to the caller)."""
    asked = os.environ.get("REKS_TRACER")
    if asked == "instrumented":
        return InstrumentedTracer(is_project_file)
    if hasattr(sys, "monitoring"):
        return MonitoringTracer(is_project_file)
    if asked == "profile" or any_project_module(is_project_file):
        return ProfileTracer(is_project_file)
    return InstrumentedTracer(is_project_file)


def any_project_module(is_project_file: Callable[[str], bool]) -> bool:
    """Whether a project module is imported already."""
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        if isinstance(filename, str) and is_project_file(filename):
            return True
    return False
