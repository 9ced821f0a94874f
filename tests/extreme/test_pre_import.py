"""Functions that ran while the project was imported, checked by a warm pre-import worker: a
pytest session that loaded its plugins and conftest files but not the project, whose forked
child installs the transformation by an import hook, collects the covering tests and runs
them. Its verdicts must be those of the plain run on disk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Analysis, Options, analyse
from lsp_server.extreme.disk_check import BEFORE_IMPORT
from lsp_server.extreme.model import TransformationResult, Verdict
from lsp_server.extreme.on_disk import PrivateCopy, rewrite_body
from lsp_server.extreme.quick import SavedChange, merged, saved_change
from lsp_server.extreme.warm import WarmPools
from tests.extreme.conftest import LOOP_MODULE
from tests.extreme.test_edit_reuse import _edited_alone
from tests.extreme.test_import_time import IMPORT_TIME_FUNCTIONS, IMPORT_TIME_PROJECT


def _disk_verdicts(root: Path, rows: list[TransformationResult]) -> list[Verdict]:
    """The plain way's verdict of each row: the file rewritten in a copy, pytest afresh."""
    with PrivateCopy(root) as copy:
        return [copy.run(r.transformation, r.tests, 60.0).verdict for r in rows]


def _rows(analysis: Analysis, function: str) -> list[TransformationResult]:
    return [r for r in analysis.results if r.transformation.function == function]


def _saved_on_warm_workers(
    root: Path,
    warm: WarmPools,
    edit: tuple[str, str],
    alone: bool = False,
    meanwhile: Callable[[WarmPools], None] = lambda warm: None,
) -> tuple[Analysis, SavedChange, Analysis]:
    """Analyse on ``warm``'s workers, do ``meanwhile`` to them, edit ``exclude_keywords`` in
    sigs.py (``edit``: old and new text), and re-analyse as the editor's save does
    (``alone``: that function only): the first analysis, the change and the re-analysis."""
    last = analyse(root, Options(jobs=1), warm=warm)
    meanwhile(warm)
    sigs = root / "sigs.py"
    sigs.write_text(sigs.read_text().replace(*edit))
    change = saved_change(last, "sigs.py")
    assert change is not None and "sigs.py::exclude_keywords" in change.to_analyse
    files = [root / f for f in change.files]
    only = ["sigs.py::exclude_keywords"] if alone else change.to_analyse
    fresh = analyse(root, Options(jobs=1, paths=files, only=only), warm=warm)
    return last, change, fresh


@pytest.mark.slow  # two analyses and a few plain runs on disk, ~8-15 s
def test_an_edited_import_time_function_is_checked_on_the_warm_pre_import_worker(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(IMPORT_TIME_PROJECT)
    warm = WarmPools()
    try:
        edit = ("    return names", "    return names[:]")
        last, change, fresh = _saved_on_warm_workers(root, warm, edit, alone=True)
        out = merged(last, change, fresh)
        # No Python started: the edited function is analysed on the pre-import worker
        # alone (the in-place workers, stale now, restart at their next use).
        assert (warm.restarts, warm.pre_import_starts) == (1, 1)
        # A save re-analyses accepts too (it reads what the edited function computed at
        # import): on in-place workers started afresh.
        assert "sigs.py::accepts" in change.to_analyse
    finally:
        warm.close()
    rows = _rows(out, "exclude_keywords")
    assert rows and all(BEFORE_IMPORT in r.reason for r in rows), rows
    assert [r.verdict for r in rows] == _disk_verdicts(root, rows)
    for function in IMPORT_TIME_FUNCTIONS:
        assert all(r.verdict is not Verdict.UNDETECTED for r in _rows(out, function)), function


@pytest.mark.slow  # an analysis checking every import-time function on disk, ~10-25 s
def test_a_function_the_conftest_imports_is_checked_on_disk(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # The pre-import worker has imported sigs with its conftest: an import hook in its
    # child would not see the module imported again, so the plain way checks it.
    root = make_project({**IMPORT_TIME_PROJECT, "conftest.py": "import sigs\n"})
    analysis = analyse(root, Options(jobs=1))
    for function in IMPORT_TIME_FUNCTIONS:
        rows = _rows(analysis, function)
        assert rows and all("checked on disk" in r.reason for r in rows), function
        assert all(r.verdict is not Verdict.UNDETECTED for r in rows), function


def test_the_rewritten_body_keeps_every_other_line_where_it_was() -> None:
    # The child's recorder maps code to units by line, from the file as it is on disk.
    source = "def f(x):\n    y = x\n\n    return y  # same\n\n\ndef g():\n    return 1\n"
    rewritten = rewrite_body(source, 1, "f", "return None")
    assert rewritten.splitlines()[6:] == source.splitlines()[6:]
    assert len(rewritten.splitlines()) == len(source.splitlines())
    namespace: dict[str, object] = {}
    exec(compile(rewritten, "m.py", "exec"), namespace)
    assert namespace["f"](3) is None  # type: ignore[operator]


STALE_PROJECT = {
    "sigs.py": IMPORT_TIME_PROJECT["sigs.py"],
    "test_sigs.py": """
        from sigs import accepts, exclude_keywords

        def test_accepts():
            assert not accepts("key") and not accepts("default")

        def test_calls_without_checking():
            exclude_keywords()
    """,
}


@pytest.mark.slow  # three analyses, ~10-20 s
def test_an_edit_of_an_import_time_function_is_not_analysed_on_stale_workers(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # After the edit test_accepts fails (EXCLUDED lost "default"), so only the test that
    # checks nothing covers exclude_keywords: ``return ()`` is undetected. Warm workers
    # that followed the new body but kept the EXCLUDED of the old one still pass
    # test_accepts and let it detect the transformation. The quick path runs the remembered
    # detector only (``reuse.edited_rerun``): failing now, it leaves no verdict.
    root = make_project(STALE_PROJECT)
    warm = WarmPools()
    try:
        _, _, fresh = _saved_on_warm_workers(root, warm, ('("key", "default")', '("key",)'))
    finally:
        warm.close()
    cold = analyse(root, Options(jobs=1, incremental=False))
    assert {r.verdict for r in _rows(cold, "exclude_keywords")} == {Verdict.UNDETECTED}
    quick = _rows(fresh, "exclude_keywords")
    assert quick and all(r.verdict is Verdict.ERROR for r in quick), quick
    assert all("test_accepts does not pass on the edited code" in r.reason for r in quick)


@pytest.mark.slow  # three analyses and a hung run stopped at its deadline, ~5-15 s
def test_a_hang_in_the_quick_path_before_import_stops_at_the_test_deadline(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # ``ready`` runs at import; ``ready -> return False`` makes the test's loop endless.
    # Re-analysed before import after an edit, the run must stop at the test's deadline
    # (and CPU budget), not after the minute a plain run's collection is allowed.
    module = LOOP_MODULE + "\nAT_IMPORT = ready({'n': 5})\n"
    test = "from m import advance\n\ndef test_advance():\n    assert advance({'n': 0}) == 3\n"
    root = make_project({"m.py": module, "test_m.py": test})
    _, fresh, _ = _edited_alone(root, "m.py::ready", module.replace(">= 3", ">= 1 + 2"))
    hung = [r for r in _rows(fresh, "ready") if r.transformation.body == "return False"]
    assert hung and hung[0].verdict is Verdict.TIMEOUT, hung
    assert BEFORE_IMPORT in hung[0].reason
    assert "deadline" in hung[0].reason or "CPU time" in hung[0].reason, hung[0].reason


def test_an_edit_of_what_ran_at_import_reaches_the_runs_that_read_its_result(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # ``accepts`` reads EXCLUDED, which exclude_keywords computed at import: its runs
    # never call exclude_keywords, yet an edit of it changes what they see.
    root = make_project(IMPORT_TIME_PROJECT)
    last = analyse(root, Options(jobs=1, only=["accepts"]))
    assert {r.verdict for r in _rows(last, "accepts")} == {Verdict.DETECTED}
    sigs = root / "sigs.py"
    sigs.write_text(sigs.read_text().replace('("key", "default")', '("default",)'))
    change = saved_change(last, "sigs.py")
    assert change is not None and "sigs.py::accepts" in change.to_analyse


@pytest.mark.slow  # three analyses and a hung import stopped twice at its deadline, ~10-20 s
def test_a_hang_while_importing_in_the_quick_path_stops_at_the_collection_deadline(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # ``ready -> return False`` makes the module-level ``advance`` endless: the run before
    # import hangs while its child imports the project, before any test has a deadline.
    # It must stop at a deadline drawn from how long that collection takes on the edited
    # code, not after the minute plus the timeout a plain run's collection is allowed
    # (twice: a timeout counts when it repeats).
    module = LOOP_MODULE + "\nAT_IMPORT = advance({'n': 0})\n"
    test = "from m import advance\n\ndef test_advance():\n    assert advance({'n': 0}) == 3\n"
    root = make_project({"m.py": module, "test_m.py": test})
    warm = WarmPools()
    try:
        analyse(root, Options(jobs=1), warm=warm)
        (root / "m.py").write_text(module.replace(">= 3", ">= 1 + 2"))
        fresh = analyse(root, Options(jobs=1, only=["m.py::ready"]), warm=warm)
    finally:
        warm.close()
    hung = [r for r in _rows(fresh, "ready") if r.transformation.body == "return False"]
    assert hung and hung[0].verdict is Verdict.TIMEOUT, hung
    assert BEFORE_IMPORT in hung[0].reason
    assert "while importing" in hung[0].reason, hung[0].reason
    assert fresh.elapsed < 60.0  # the old limit alone was 60 s plus the timeout


@pytest.mark.slow  # two analyses, each checking the import-time functions on disk, ~10-25 s
def test_an_edited_function_of_a_file_the_conftest_imports_is_not_checked_before_import(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # The pre-import worker's session imported sigs with its conftest: in its child the
    # import hook never sees sigs imported, so the tests would run the untransformed
    # code and find ``return ()`` undetected. The quick path must not use it for sigs,
    # nor start new pre-import workers (the edit of sigs made the kept ones stale) only
    # to find that their session imports sigs again.
    root = make_project({**IMPORT_TIME_PROJECT, "conftest.py": "import sigs\n"})
    warm = WarmPools()
    try:
        edit = ("    return names", "    return names[:]")
        _, _, fresh = _saved_on_warm_workers(root, warm, edit, alone=True)
        assert warm.pre_import_starts == 1  # by the first analysis
    finally:
        warm.close()
    rows = _rows(fresh, "exclude_keywords")
    assert rows and [r.verdict for r in rows] == _disk_verdicts(root, rows)
    assert all(r.verdict is not Verdict.UNDETECTED for r in rows), rows
    assert all(BEFORE_IMPORT not in r.reason for r in rows), rows


# A parameter drawn at collection gives the test a new node id at each collection.
UNSTABLE_ID_PROJECT = {
    "sigs.py": IMPORT_TIME_PROJECT["sigs.py"],
    "test_sigs.py": """
        import time

        import pytest

        from sigs import exclude_keywords

        @pytest.mark.parametrize("stamp", [time.perf_counter_ns()])
        def test_calls_without_checking(stamp):
            exclude_keywords()
    """,
}


def test_a_test_whose_id_changes_at_each_collection_detects_nothing_before_import(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # Only a test that checks nothing covers exclude_keywords. Collected again in the
    # pre-import child it has another id: that is no sign that the transformation broke
    # the collection (the code as it is does the same), so it cannot be a detection.
    root = make_project(UNSTABLE_ID_PROJECT)
    rows = _rows(analyse(root, Options(jobs=1)), "exclude_keywords")
    assert rows, rows
    for row in rows:
        assert row.verdict is not Verdict.DETECTED, row
        assert row.verdict is Verdict.ERROR and "id changes" in row.reason, row


@pytest.mark.slow  # two analyses and a few plain runs on disk, ~8-15 s
def test_kept_pre_import_workers_that_died_are_started_afresh(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # The kept pre-import worker was killed between two saves (out of memory, by hand):
    # the save's quick path spawns new ones instead of failing on the dead one.
    def kill_the_pre_import_worker(warm: WarmPools) -> None:
        (kept,) = warm._pre_import.values()
        kept.workers[0].process.kill()

    root = make_project(IMPORT_TIME_PROJECT)
    warm = WarmPools()
    try:
        edit = ("    return names", "    return names[:]")
        last, change, fresh = _saved_on_warm_workers(
            root, warm, edit, alone=True, meanwhile=kill_the_pre_import_worker
        )
        assert warm.pre_import_starts == 2
    finally:
        warm.close()
    rows = _rows(merged(last, change, fresh), "exclude_keywords")
    assert rows and all(BEFORE_IMPORT in r.reason for r in rows), rows
    assert [r.verdict for r in rows] == _disk_verdicts(root, rows)
