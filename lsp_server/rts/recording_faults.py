"""An error in reks's own recording stops the recording, never the test session.

The recorder runs between the project's tests (walks over the values of the project's
modules, attribution, writes). An exception of its own there became pytest's
INTERNALERROR: the session stopped before the tests ran, and the developer's test run was
broken by a tool meant to speed it up. Now the first such error stops tracing; the tests
run on as plain pytest, the tests recorded before it keep their records, and every test
run after it (that one included) is marked stale in the store, so the next selection runs
them again: a change they ran against is never taken as seen. The terminal summary says
what happened and where."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest


class RecordingFault:
    """The first error of the recording, and the tests run unrecorded since (a plugin: it
    reports in the terminal summary)."""

    def __init__(self) -> None:
        self.error: str | None = None
        self.where = ""
        self.unrecorded: set[str] = set()

    @property
    def reason(self) -> str:
        """Why the unrecorded tests are stale."""
        return f"not recorded: reks's recording stopped at {self.where} ({self.error})"

    @contextlib.contextmanager
    def caught(self, nodeid: str, stop: Callable[[], None]) -> Iterator[None]:
        """Run the recorder's work for the test ``nodeid``; an ``Exception`` it raises is
        kept, ``stop`` ends the recording, and the test runs on."""
        try:
            yield
        except Exception as error:  # reks's own failure: the project's tests still run
            if self.error is None:
                self.error, self.where = f"{type(error).__name__}: {error}", nodeid
            self.unrecorded.add(nodeid)
            with contextlib.suppress(Exception):  # stopping is best effort after a fault
                stop()

    def take_unrecorded(self) -> set[str]:
        """The tests run unrecorded since the last call."""
        taken, self.unrecorded = self.unrecorded, set()
        return taken

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.error is not None:
            terminalreporter.write_line(
                f"reks: recording stopped by an internal error at {self.where} "
                f"({self.error}); the tests run from there on are not recorded and run "
                "again next time",
                yellow=True,
            )


def register_fault_watch(config: pytest.Config) -> RecordingFault:
    """A ``RecordingFault`` registered with pytest for its summary."""
    fault = RecordingFault()
    config.pluginmanager.register(fault, "reks-recording-fault")
    return fault
