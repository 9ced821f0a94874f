"""In the pytest worker: the only tests to collect of a test file some of whose tests
cannot reach the analysed functions (``collection_scope``); a pytest plugin."""

from __future__ import annotations

from collections.abc import Iterable

import pytest


class WantedTests:
    """The wanted tests' node ids, and those of the collectors (module, class) above them,
    without parameters: a parametrized test is collected whole, as pytest does."""

    def __init__(self) -> None:
        self.wanted: set[str] = set()
        self.narrowed: set[str] = set()  # collectors whose children are only wanted ones

    def want(self, nodeids: Iterable[str]) -> None:
        """Collect only ``nodeids`` of the collectors above them (before collection)."""
        for nodeid in nodeids:
            parts = nodeid.partition("[")[0].split("::")
            for depth in range(1, len(parts)):
                self.narrowed.add("::".join(parts[:depth]))
                self.wanted.add("::".join(parts[: depth + 1]))

    def leaves_out(self, collector: str, name: str) -> bool:
        """Whether the collector with node id ``collector`` skips its member ``name``.
        A collector not named (another file, or one whose node ids pytest spells
        otherwise than the store) collects everything, as before."""
        return collector in self.narrowed and f"{collector}::{name}" not in self.wanted

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makeitem(
        self, collector: pytest.Module | pytest.Class, name: str, obj: object
    ) -> list[pytest.Item] | None:
        # An empty list is an answer: pytest's own hooks are not asked.
        return [] if self.leaves_out(collector.nodeid, name) else None
