"""In the pytest worker: the only tests to collect of a test file some of whose tests
cannot reach the analysed functions (``collection_scope``). Standard library only."""

from __future__ import annotations

from collections.abc import Iterable


class WantedTests:
    """The wanted tests' node ids, and those of the collectors (module, class) above them,
    without parameters: a parametrized test is collected whole, as pytest does."""

    def __init__(self, nodeids: Iterable[str]) -> None:
        self.wanted: set[str] = set()
        self.narrowed: set[str] = set()  # collectors whose children are only wanted ones
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
