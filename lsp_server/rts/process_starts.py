"""Processes started while the tests run: the child may be another interpreter, or patch
``sys.version_info`` itself, and import the project's modules, running the branches of
their version guards that do not run here (``rts.dead_runs``). The window open when a
process starts (a test's, a fixture's, a collection's) gets a marker of every project
module loaded then, which stands for its file's ``DEAD`` unit."""

from __future__ import annotations

from collections.abc import Callable

from lsp_server.rts.audit_events import watch_processes
from lsp_server.rts.dead_runs import DEAD_RUNS
from lsp_server.rts.windows import Window


class ProcessStarts:
    """Notes each process started into the innermost of the recorder's open windows
    (``innermost``: None when none is open)."""

    def __init__(
        self, innermost: Callable[[], Window | None], is_project_file: Callable[[str], bool]
    ) -> None:
        self._innermost = innermost
        self._is_project_file = is_project_file

    def start(self) -> None:
        watch_processes(self._started)

    def stop(self) -> None:
        watch_processes(None)

    def _started(self) -> None:
        window = self._innermost()
        if window is not None:  # none between tests: nothing the child does is any test's
            window.codes.update(DEAD_RUNS.process_markers(self._is_project_file))
