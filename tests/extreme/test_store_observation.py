"""The observation pass is skipped when the dependency store already knows what it would
find: which tests execute each function (and that they pass), how long they take, and what
kinds of values each function returned while ``pytest --reks`` ran them (the fresh store's
case: ``test_runner.test_dependency_store_stands_in_for_the_observation_run``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse
from tests.support.reks import run_pytest


def _record(root: Path) -> None:
    recorded = run_pytest(root, "--reks", "-p", "no:cacheprovider")
    assert recorded.returncode == 0, recorded.stdout


def test_what_the_store_does_not_know_is_observed(example: Path) -> None:
    _record(example)
    # A new test: what it executes is unknown until it runs.
    test_file = example / "test_versioned_set.py"
    test_file.write_text(test_file.read_text() + "\n\ndef test_extra():\n    assert True\n")
    analysis = analyse(example, Options(jobs=1, incremental=False))
    assert analysis.coverage_source == "store"
    assert analysis.observed_tests == 1  # the new test only: the others are unchanged


def test_pytest_reks_records_return_kinds(example: Path) -> None:
    from lsp_server.rts.file_units import Unit
    from lsp_server.rts.store import DependencyStore

    _record(example)
    names = [
        "VersionedSet.__eq__",
        "VersionedSet.size",
        "VersionedSet.add",
        "VersionedSet.intersect",
    ]
    with DependencyStore(example) as store:
        recorded = store.return_kinds([Unit("versioned_set.py", n) for n in names])
    kinds = {unit.name: found for unit, (_, found) in recorded.items()}
    assert kinds == {
        "VersionedSet.__eq__": ["bool"],
        "VersionedSet.size": ["int"],
        "VersionedSet.add": ["none"],
        "VersionedSet.intersect": ["other"],
    }


def test_a_function_only_named_by_the_tests_is_not_executed(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # The test reads the name ``unused`` (so it depends on that unit) but never runs it: a
    # transformation of it cannot be detected, and must not be reported undetected.
    root = make_project(
        {
            "m.py": """
                def used(x):
                    y = x + 1
                    return y

                def unused(x):
                    y = x * 2
                    return y
            """,
            "test_m.py": """
                from m import used, unused

                def test_used():
                    assert used(1) == 2
                    assert callable(unused)
            """,
        }
    )
    _record(root)
    analysis = analyse(root, Options(jobs=1, incremental=False))
    assert analysis.coverage_source == "store only"
    verdicts = {(r.transformation.function, r.verdict.value) for r in analysis.results}
    assert ("unused", "skipped") in verdicts
    assert [r.reason for r in analysis.results if r.transformation.function == "unused"] == [
        "not executed by any test"
    ]
    assert ("used", "detected") in verdicts


def test_the_scope_and_the_store_reading_share_one_selection(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # The collection scope finds the changes once for both its own selection (with the
    # environment) and the store reading's (without): the latter must be exactly what
    # ``select_affected_tests`` answers on its own, and the observation must use it.
    from lsp_server.rts.select import select_affected_tests
    from lsp_server.rts.store import DependencyStore

    root = make_project(
        {
            "m.py": """
                def kept(x):
                    y = x + 1
                    return y

                def edited(x):
                    y = x * 2
                    return y
            """,
            "test_m.py": """
                from m import edited, kept

                def test_kept():
                    assert kept(1) == 2

                def test_edited():
                    assert edited(2) == 4
            """,
        }
    )
    _record(root)
    module = root / "m.py"
    module.write_text(module.read_text().replace("x * 2", "2 * x"))
    with DependencyStore(root) as store:
        alone = set(select_affected_tests(root, store).selected)
    analysis = analyse(root, Options(jobs=1, incremental=False))
    assert alone == {"test_m.py::test_edited"}
    assert analysis.selected_without_environment == alone
    assert analysis.observed_tests == 1
