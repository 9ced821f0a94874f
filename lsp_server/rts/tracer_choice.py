"""The tracer for the running Python: ``sys.monitoring`` on 3.12+ (``rts.tracing``), a
profile hook before (``rts.profile_tracer``).

``REKS_TRACER=instrumented`` in the environment asks for project modules compiled with
markers instead (``rts.instrumented_tracer``: no hook per call, a fraction of the profile
hook's cost on 3.10/3.11, but no return kinds recorded), when no project module is imported
yet (code compiled already has no markers); ``REKS_TRACER=profile`` for the profile hook
(``bench/tracer_stores.py`` compares the two)."""

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
    if asked == "instrumented" and not any_project_module(is_project_file):
        return InstrumentedTracer(is_project_file)
    if hasattr(sys, "monitoring") and asked != "profile":
        return MonitoringTracer(is_project_file)
    return ProfileTracer(is_project_file)


def any_project_module(is_project_file: Callable[[str], bool]) -> bool:
    """Whether a project module is imported already."""
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        if isinstance(filename, str) and is_project_file(filename):
            return True
    return False
