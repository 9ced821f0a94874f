"""Does the captured test run any of T itself? A factored test checks T only where T runs
in the test's process, outside E: when E does all the work (T runs in a child process E
starts, or only at import, before the window), the replay would answer everything from the
transcript and the factored test would pass whatever T does.

A profile hook watches calls during the capture window and removes itself at the first
call of a project function (not a test, not E's own code) made outside E, so that the
capture pays for it only until T shows up."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from lsp_server.factoring.boundary import Boundary
from lsp_server.project.files import ProjectPaths, is_test_path


class WindowWatch:
    """Something watching T during the capture window: T's files, E's boundaries, whether E
    is running, and the profile hook that was there before (chained)."""

    def __init__(
        self, root: Path, boundaries: Sequence[Boundary], in_environment: Callable[[], bool]
    ) -> None:
        self.paths = ProjectPaths(root)
        self.boundaries = list(boundaries)
        self.in_environment = in_environment
        self._previous: Any = None


class TActivity(WindowWatch):
    """The first function of T seen running outside E during the window (``seen``)."""

    def __init__(
        self, root: Path, boundaries: Sequence[Boundary], in_environment: Callable[[], bool]
    ) -> None:
        super().__init__(root, boundaries, in_environment)
        self.seen: str | None = None
        self._files: dict[str, bool] = {}

    def start(self) -> None:
        self._previous = sys.getprofile()
        sys.setprofile(self._profile)
        threading.setprofile(self._profile)

    def stop(self) -> None:
        if sys.getprofile() == self._profile:
            sys.setprofile(self._previous)
        threading.setprofile(None)

    def refusal(self) -> str | None:
        if self.seen is not None:
            return None
        names = ", ".join(b.spec for b in self.boundaries)
        return (
            f"the test runs none of the project's own code outside {names} (E does all the "
            "work, e.g. in a child process, or T ran only at import): its factored test would "
            "check nothing of T"
        )

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if self._previous is not None:  # a hook of the window installed before (clock)
            self._previous(frame, event, arg)
        if event != "call":
            return
        code = frame.f_code
        is_t = self._files.get(code.co_filename)
        if is_t is None:
            rel = self.paths.python_rel(code.co_filename)
            is_t = self._files[code.co_filename] = rel is not None and not is_test_path(rel)
        if not is_t or self.in_environment():
            return
        module = frame.f_globals.get("__name__", "")
        if any(b.owns_module(module) for b in self.boundaries):
            return
        self.seen = f"{module}.{getattr(code, 'co_qualname', code.co_name)}"
        self.stop()
