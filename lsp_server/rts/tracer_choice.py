"""The tracer for the running Python: ``sys.monitoring`` on 3.12+ (``rts.tracing``), a
profile hook before (``rts.profile_tracer``)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from lsp_server.rts.profile_tracer import ProfileTracer
from lsp_server.rts.tracing import CodeTracer, MonitoringTracer


def new_tracer(is_project_file: Callable[[str], bool]) -> CodeTracer:
    """The tracer for this Python; ``is_project_file(co_filename)`` says whose code counts
    (the profile hook sees everything and leaves the choice to the caller)."""
    if hasattr(sys, "monitoring"):
        return MonitoringTracer(is_project_file)
    return ProfileTracer(is_project_file)
