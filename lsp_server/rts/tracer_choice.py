"""The tracer for the running Python: ``sys.monitoring`` on 3.12+ (``rts.tracing``); before,
project modules compiled with markers (``rts.instrumented_tracer``: no Python code per call,
a fraction of a profile hook's cost), or the profile hook (``rts.profile_tracer``) when a
project module is imported already: its code was compiled without markers (a project that
is a pytest plugin of its own, loaded with pytest's plugins, say).

``REKS_TRACER`` in the environment asks for one: ``profile`` (the profile hook),
``instrumented`` (the markers, 3.12 included, when no project module is imported yet);
``bench/tracer_stores.py`` compares the two."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from lsp_server.rts.alive_code import any_project_module
from lsp_server.rts.instrumented_tracer import InstrumentedTracer
from lsp_server.rts.profile_tracer import ProfileTracer
from lsp_server.rts.tracing import CodeTracer, MonitoringTracer


def new_tracer(
    is_project_file: Callable[[str], bool], is_test_file: Callable[[str], bool] | None = None
) -> CodeTracer:
    """The tracer for this Python; ``is_project_file(co_filename)`` says whose code counts
    (the profile hook sees everything and leaves the choice to the caller), and
    ``is_test_file`` whose return kinds nobody reads (the tests')."""
    asked = os.environ.get("REKS_TRACER")
    monitoring = hasattr(sys, "monitoring")
    markers = asked == "instrumented" or (not monitoring and asked != "profile")
    if markers and not any_project_module(is_project_file):
        return InstrumentedTracer(is_project_file, is_test_file)
    if monitoring and asked != "profile":
        return MonitoringTracer(is_project_file)
    return ProfileTracer(is_project_file)
