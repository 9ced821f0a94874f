"""In the pytest worker: the only tests to collect of a test file some of whose tests
cannot reach the analysed functions (``collection_scope``); a pytest plugin."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Generator, Iterable, Iterator, Sequence

import pytest


class WantedTests:
    """The wanted tests' node ids, and those of the collectors (module, class) above them,
    without parameters: a parametrized test is collected whole, as pytest does."""

    def __init__(self) -> None:
        # Collector node id -> the names of its members to collect; a collector not named
        # here collects everything.
        self.members: dict[str, set[str]] = {}

    def want(self, nodeids: Iterable[str]) -> None:
        """Collect only ``nodeids`` of the collectors above them (before collection)."""
        for nodeid in nodeids:
            parts = nodeid.partition("[")[0].split("::")
            for depth in range(1, len(parts)):
                self.members.setdefault("::".join(parts[:depth]), set()).add(parts[depth])

    def leaves_out(self, collector: str, name: str) -> bool:
        """Whether the collector with node id ``collector`` skips its member ``name``.
        A collector not named (another file, or one whose node ids pytest spells
        otherwise than the store) collects everything, as before."""
        members = self.members.get(collector)
        return members is not None and name not in members

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makeitem(
        self, collector: pytest.Module | pytest.Class, name: str, obj: object
    ) -> list[pytest.Item] | None:
        # An empty list is an answer: pytest's own hooks are not asked.
        return [] if self.leaves_out(collector.nodeid, name) else None

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        # pytest makes the items of a unittest.TestCase class itself, from the names
        # unittest's loader finds, without asking pytest_pycollect_makeitem.
        with _only_methods(_unittest_class(collector), self.members.get(collector.nodeid)):
            return (yield)


def _unittest_class(collector: pytest.Collector) -> type | None:
    """The unittest.TestCase class ``collector`` collects the methods of, if any."""
    unittest = sys.modules.get("unittest")
    cls = getattr(collector, "obj", None) if isinstance(collector, pytest.Class) else None
    if unittest is None or not isinstance(cls, type) or not issubclass(cls, unittest.TestCase):
        return None
    return cls


@contextlib.contextmanager
def _only_methods(cls: type | None, names: set[str] | None) -> Iterator[None]:
    """While inside: unittest's loaders find only the test methods ``names`` of ``cls``.
    Nothing is narrowed unless every name is one of the methods the loader finds: else the
    class collects whole."""
    from unittest import TestCase, TestLoader

    if cls is None or not names:
        yield
        return
    # pytest's loader is made inside its collect, so the class is the one place to narrow
    # it. Not through the loader's name patterns: those compile one pattern per name and
    # match every method against every pattern. The worker collects on one thread, and
    # the class is restored right after.
    find = TestLoader.getTestCaseNames

    def only_wanted(loader: TestLoader, case_class: type[TestCase]) -> Sequence[str]:
        found = find(loader, case_class)
        if case_class is not cls or not names.issubset(found):
            return found
        return [name for name in found if name in names]

    TestLoader.getTestCaseNames = only_wanted  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        TestLoader.getTestCaseNames = find  # type: ignore[method-assign]
