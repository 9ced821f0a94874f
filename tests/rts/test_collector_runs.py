"""Code that the garbage collector runs on its own (finalizers of cyclic garbage: weakref
callbacks, ``__del__``) belongs to no test: an automatic collection starts whenever
allocations pass a threshold, so it falls in whichever test runs then, and frees what
earlier tests left. On jinja a ``ModuleLoader``'s weakref callback, left by a loader test,
ran inside ``test_list_add`` in some runs and not others, and gave it a dependency on every
name (``<names> *``). A test that asks for a collection (``gc.collect()``) depends on every
finalizer that ran in it, whichever collection ran it. Checked on real pytest sessions."""

from __future__ import annotations

import gc
import os
import sys

import pytest

from lsp_server.rts.file_units import Unit
from lsp_server.rts.reads import EVERY_NAME, NAMES
from lsp_server.rts.store import DependencyStore

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

RESOURCE = """
import os

ATTRS = ["name"]


def close(resource):
    os.environ["RES_CLOSED"] = getattr(resource, ATTRS[0])  # a name by a computed value


class Resource:
    def __init__(self, name):
        self.name = name
        self.me = self  # a cycle: only the collector frees it

    def __del__(self):
        close(self)
"""

LEAVES_GARBAGE = """
import gc

from res import Resource


def test_leaves_garbage():
    gc.disable()  # nothing collects it before the next test allocates
    Resource("left")
"""

# Appending lists passes the collector's threshold: an automatic collection.
ALLOCATES = """
import gc


def test_allocates():
    gc.enable()
    cells = [[] for _ in range(10_000)]
    assert len(cells) == 10_000
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """``res.py``: a class whose objects only the collector frees, finalized by ``close``;
    the collector switched back on afterwards."""
    monkeypatch.delenv("RES_CLOSED", raising=False)
    write(pytester, "res.py", RESOURCE)
    pytester.syspathinsert()
    yield pytester
    gc.enable()


def _dependencies(pytester: pytest.Pytester, nodeid: str) -> set[Unit]:
    store = DependencyStore(str(pytester.path), create=False, read_only=True)
    try:
        return set(store.dependencies_of(nodeid))
    finally:
        store.close()


@pytest.mark.skipif(
    sys.version_info < (3, 12),
    reason="the instrumented tracer of 3.10/3.11 cannot set a collection's code apart",
)
def test_what_a_collection_frees_of_an_earlier_test_is_no_dependency(
    project: pytest.Pytester,
) -> None:
    write(project, "test_a_leaves.py", LEAVES_GARBAGE)
    write(project, "test_b_allocates.py", ALLOCATES)
    nodeid = "test_b_allocates.py::test_allocates"
    assert run(project, flag="--reks-all") == {"test_leaves_garbage", "test_allocates"}
    assert os.environ.get("RES_CLOSED") == "left"  # the finalizer ran, in test_allocates
    after_another = _dependencies(project, nodeid)
    assert Unit(NAMES, EVERY_NAME) not in after_another
    assert not {unit for unit in after_another if unit.path == "res.py"}
    assert run(project, "test_b_allocates.py", flag="--reks-all") == {"test_allocates"}
    assert _dependencies(project, nodeid) == after_another


def test_code_first_run_by_a_collection_counts_when_the_test_runs_it(
    project: pytest.Pytester,
) -> None:
    """Guard: ``close`` ran first in the collection (its events then switched off), then
    in the test itself: the test depends on it."""
    write(project, "test_a_leaves.py", LEAVES_GARBAGE)
    write(
        project,
        "test_b_by_hand.py",
        """
        import gc
        import os

        from res import close


        class Named:
            name = "by hand"


        def test_closes_by_hand():
            gc.enable()
            cells = [[] for _ in range(10_000)]  # the collection closes what was left
            close(Named())
            assert os.environ.pop("RES_CLOSED") == "by hand"
        """,
    )
    assert run(project) == {"test_leaves_garbage", "test_closes_by_hand"}
    edit(project, "res.py", "getattr(resource, ATTRS[0])", "getattr(resource, ATTRS[0]).upper()")
    assert "test_closes_by_hand" in run(project)


def test_a_test_asking_for_a_collection_depends_on_its_finalizers(
    project: pytest.Pytester,
) -> None:
    """Guard: tests collecting their own garbage with ``gc.collect()`` fail once the
    finalizer changes, also where an automatic collection came first and ran it."""
    write(
        project,
        "test_b_collects.py",
        """
        import gc
        import os

        from res import Resource


        def test_collects():
            gc.enable()
            Resource("mine")
            gc.collect()
            assert os.environ.pop("RES_CLOSED") == "mine"


        def churn():
            return [[] for _ in range(10_000)]  # an automatic collection starts here


        def test_collected_before_asking():
            Resource("early")
            churn()
            assert os.environ.pop("RES_CLOSED") == "early"
            gc.collect()
        """,
    )
    assert run(project) == {"test_collects", "test_collected_before_asking"}
    edit(project, "res.py", "getattr(resource, ATTRS[0])", "getattr(resource, ATTRS[0]).upper()")
    assert run(project) == {"test_collects", "test_collected_before_asking"}
