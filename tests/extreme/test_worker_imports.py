"""A pytest worker's start is part of every analysis's fixed cost: it imports only what it
uses, not the dependency store, the tracer of ``pytest --reks``, the job layer or the
source analysis (~40 modules: its recorder finds the analyses of the files it needs kept,
and freezegun scans every module at each ``freeze_time``)."""

from __future__ import annotations

import json
import subprocess
import sys

WORKER_MODULES = (
    "lsp_server.extreme.pytest_worker",
    "lsp_server.extreme.execution_recorder",  # the import-time recorder, started first
    "lsp_server.extreme.run_log",  # imported at the first prepare
)
NOT_NEEDED = (
    "lsp_server.rts.store",
    "lsp_server.rts.tracing",
    "lsp_server.jobs",
    "sqlite3",
    "lsp_server.rts.units",
)


def test_the_worker_does_not_import_the_store_the_tracer_or_jobs() -> None:
    code = (
        "import json, sys\n"
        + "".join(f"import {module}\n" for module in WORKER_MODULES)
        + f"print(json.dumps([m for m in {list(NOT_NEEDED)!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout) == []
