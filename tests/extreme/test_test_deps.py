"""A function's state entry depends on the union of its covering tests' dependencies
(``state.run_deps`` of what each ran), however many tests share them."""

from __future__ import annotations

from lsp_server.extreme.doc_reads import DOCSTRINGS
from lsp_server.extreme.state import TOP_LEVEL, run_deps
from lsp_server.extreme.test_deps import TestDeps


def _units(test: int) -> list[str]:
    """Units of a run: some shared by every test, some of its own, some in other files."""
    own = [f"pkg/mod{test % 7}.py::f{test}", f"pkg/mod{test % 3}.py::g{test % 5}"]
    shared = ["pkg/core.py::parse", "tests/test_a.py::test_a"]
    docs = [f"pkg/docs{test % 2}.py::{DOCSTRINGS}"]  # read docstrings: no code of that file
    return own + shared + docs


def test_the_union_is_run_deps_of_every_unit_the_runners_ran() -> None:
    tests = {f"tests/test_a.py::test_{i}": {"units": _units(i)} for i in range(300)}
    deps = TestDeps(tests)
    for runners in ([], ["tests/test_a.py::test_3"], list(tests)[:90], list(tests)[50:]):
        expected = run_deps({unit for nodeid in runners for unit in tests[nodeid]["units"]})
        assert deps.union(runners) == expected
    assert f"pkg/docs0.py::{TOP_LEVEL}" not in deps.union(list(tests))
    assert f"pkg/core.py::{TOP_LEVEL}" in deps.union(["tests/test_a.py::test_0"])
