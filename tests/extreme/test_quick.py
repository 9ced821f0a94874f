"""The editor's quick path without the server: which functions of a saved file changed
since the last analysis, and that analysis with the new verdicts merged in."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Analysis
from lsp_server.extreme.discover import discover
from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.quick import merged, replaced_files, saved_change

from .conftest import rewritten_with_the_same_stamp, stamped_later

SOURCE = """\
def double(x):
    y = x * 2
    return y


def triple(x):
    y = x * 3
    return y


def half(x):
    y = x // 2
    return y
"""


def _analysis(root: Path, files: list[str], verdict: Verdict) -> Analysis:
    """An analysis of ``files`` in which every function got ``verdict`` for `return 0`."""
    functions, errors = discover(root, files)
    results = [
        TransformationResult(Transformation(f.path, f.qualname, f.line, "return 0"), verdict)
        for f in functions
    ]
    return Analysis(root, results, {f.key: f for f in functions}, errors=errors)


def test_an_edit_changes_only_the_edited_function_and_the_others_move(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    last = _analysis(tmp_path, ["m.py"], Verdict.UNDETECTED)
    edited = "# moved\n" + SOURCE.replace("x * 2", "x + x").replace("def triple", "def treble")
    (tmp_path / "m.py").write_text(edited)

    change = saved_change(last, "m.py")
    assert change is not None
    assert change.changed == ["m.py::double", "m.py::treble"]  # edited, and renamed (new)
    assert change.removed == ["m.py::triple"]

    fresh = _analysis(tmp_path, ["m.py"], Verdict.DETECTED)
    fresh.results = [r for r in fresh.results if r.transformation.function == "double"]
    fresh.functions = {k: f for k, f in fresh.functions.items() if k == "m.py::double"}
    out = merged(last, change, fresh)
    rows = {(r.transformation.function, r.transformation.line, r.verdict) for r in out.results}
    # double's new verdict; half keeps its verdict on its new line; treble (not
    # re-analysed here) has none; triple dropped out.
    assert rows == {("double", 2, Verdict.DETECTED), ("half", 12, Verdict.UNDETECTED)}  # was 11
    assert set(out.functions) == {"m.py::double", "m.py::treble", "m.py::half"}


def test_an_unchanged_file_changes_nothing_and_other_files_are_not_asked(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    (tmp_path / "other.py").write_text(SOURCE)
    last = _analysis(tmp_path, ["m.py"], Verdict.UNDETECTED)
    change = saved_change(last, "m.py")
    assert change is not None and not change.any
    assert saved_change(last, "other.py") is None  # not analysed: no quick path

    (tmp_path / "m.py").write_text(SOURCE + "\n\ndef broken(:\n")
    assert saved_change(last, "m.py") is None  # does not parse: keep what is published


def test_a_run_over_one_file_replaces_that_file_only(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    (tmp_path / "n.py").write_text(SOURCE)
    last = _analysis(tmp_path, ["m.py", "n.py"], Verdict.UNDETECTED)
    fresh = _analysis(tmp_path, ["n.py"], Verdict.DETECTED)
    out = replaced_files(last, fresh, {"n.py"})
    verdicts = {(r.transformation.path, r.verdict) for r in out.results}
    assert verdicts == {("m.py", Verdict.UNDETECTED), ("n.py", Verdict.DETECTED)}
    assert len(out.functions) == 6
    assert replaced_files(None, fresh, {"n.py"}) is fresh


SHIFT = "def shift(x):\n    y = x + 1\n    return y\n"
KEEP_TEST = (
    "from helper import shift\nfrom m import keep\n\n"
    "def test_keep():\n    assert keep(shift(1)) == 2\n"
)


def _keep_project(tmp_path: Path, keep: str) -> Path:
    """``helper.shift``, whose result reaches ``test_keep`` only through ``m.keep``."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "helper.py").write_text(SHIFT)
    (root / "m.py").write_text(keep)
    (root / "test_m.py").write_text(KEEP_TEST)
    return root


@pytest.mark.slow  # two analyses, ~5-12 s
def test_a_verdict_whose_run_reached_the_edit_is_analysed_again(tmp_path: Path) -> None:
    # ``shift``'s result reaches the test only through ``keep``, which ignores it: every
    # transformation of shift is undetected. Once keep returns its argument the test
    # checks shift, and the quick path must not leave shift's stale "undetected" shown.
    from lsp_server.extreme.analysis import Options, analyse
    from lsp_server.extreme.warm import WarmPools

    keep = "def keep(v):\n    w = 2\n    return w\n"
    root = _keep_project(tmp_path, keep)
    warm = WarmPools()
    try:
        paths = [root / "m.py", root / "helper.py"]
        last = analyse(root, Options(jobs=1, paths=paths), warm=warm)
        assert {r.verdict for r in last.results if r.transformation.function == "shift"} == {
            Verdict.UNDETECTED
        }
        (root / "m.py").write_text(keep.replace("w = 2", "w = v"))
        change = saved_change(last, "m.py")
        assert change is not None
        assert change.to_analyse == ["m.py::keep", "helper.py::shift"]
        assert change.files == ["helper.py", "m.py"]
        only = change.to_analyse
        files = [root / f for f in change.files]
        fresh = analyse(root, Options(jobs=1, paths=files, only=only), warm=warm)
        out = merged(last, change, fresh)
    finally:
        warm.close()
    shift = {r.verdict for r in out.results if r.transformation.function == "shift"}
    assert shift == {Verdict.DETECTED}


def _quick_reanalysis(
    root: Path, paths: list[Path], edit: tuple[Path, str], same_stamp: bool = False
) -> Analysis:
    """Analyse ``paths`` on warm workers, write ``edit`` (path, text), save it the quick
    way (``saved_change``, the functions it names analysed again, ``merged``).
    ``same_stamp``: both versions of the edited file have the same stamp
    (``rewritten_with_the_same_stamp``)."""
    from lsp_server.extreme.analysis import Options, analyse
    from lsp_server.extreme.warm import WarmPools

    warm = WarmPools()
    try:
        if same_stamp:
            stamped_later(edit[0])
        last = analyse(root, Options(jobs=1, paths=paths), warm=warm)
        if same_stamp:
            rewritten_with_the_same_stamp(*edit)
        else:
            edit[0].write_text(edit[1])
        change = saved_change(last, edit[0].relative_to(root).as_posix())
        assert change is not None and change.any
        files = [root / f for f in change.files]
        only = change.to_analyse
        fresh = analyse(root, Options(jobs=1, paths=files, only=only), warm=warm)
        return merged(last, change, fresh)
    finally:
        warm.close()


def _verdicts(analysis: Analysis, function: str) -> set[Verdict]:
    return {r.verdict for r in analysis.results if r.transformation.function == function}


# ``keep`` passes ``shift``'s result on to the assertion, or not; an edit switches that.
# (1) Every transformation of shift is detected; once keep ignores its argument no test
# checks shift any more, and the quick path must not leave its stale "detected" shown.
# (2) A module-level constant decides: no function's code changes when it is switched on
# (an edit outside the functions), yet shift's verdicts do.
KEEP_EDITS = {
    "a-detection-whose-run-reached-the-edit": (
        "def keep(v):\n    w = v\n    return w\n",
        ("w = v", "w = 2"),
        Verdict.UNDETECTED,
    ),
    "an-edit-outside-the-functions": (
        "PASS_ON = False\n\n\ndef keep(v):\n    if PASS_ON:\n        return v\n    return 2\n",
        ("PASS_ON = False", "PASS_ON = True"),
        Verdict.DETECTED,
    ),
}


@pytest.mark.slow  # two analyses, ~5-12 s each
@pytest.mark.parametrize("case", list(KEEP_EDITS))
def test_verdicts_whose_runs_reached_the_edit_are_analysed_again(tmp_path: Path, case: str) -> None:
    keep, (old, new), now = KEEP_EDITS[case]
    root = _keep_project(tmp_path, keep)
    edit = (root / "m.py", keep.replace(old, new))
    out = _quick_reanalysis(root, [root / "m.py", root / "helper.py"], edit)
    assert _verdicts(out, "shift") == {now}


@pytest.mark.slow  # two analyses, ~5-12 s
def test_an_edited_test_file_analyses_again_the_functions_its_tests_ran(tmp_path: Path) -> None:
    # The test that checked ``shift``'s result stops checking it: shift's detections
    # are stale, though no analysed file changed.
    root = tmp_path / "project"
    root.mkdir()
    (root / "helper.py").write_text(SHIFT)
    test = "from helper import shift\n\n\ndef test_shift():\n    assert shift(1) == 2\n"
    (root / "test_helper.py").write_text(test)
    edit = (root / "test_helper.py", test.replace("assert shift(1) == 2", "shift(1)"))
    out = _quick_reanalysis(root, [root / "helper.py"], edit)
    assert _verdicts(out, "shift") == {Verdict.UNDETECTED}


@pytest.mark.slow  # two analyses, ~5-12 s
def test_an_edit_that_kept_the_size_and_the_mtime_is_seen(tmp_path: Path) -> None:
    # The constant switched within the file system's clock tick (or on one that stamps to
    # the second), its size kept: the file's stamp is the one it had when analysed.
    keep = "PASS_ON = 0\n\n\ndef keep(v):\n    if PASS_ON:\n        return v\n    return 2\n"
    root = _keep_project(tmp_path, keep)
    edit = (root / "m.py", keep.replace("PASS_ON = 0", "PASS_ON = 1"))
    out = _quick_reanalysis(root, [root / "m.py", root / "helper.py"], edit, same_stamp=True)
    assert _verdicts(out, "shift") == {Verdict.DETECTED}


NAMES = """\
def make_names():
    names = ["a", "b"]
    return names


NAMES = make_names()


def accepts(name):
    found = name in NAMES
    return found


def shout(text):
    up = text.upper()
    return up
"""
NAMES_TESTS = """\
from names import accepts, shout


def test_accepts():
    assert accepts("a")


def test_shout():
    shout("x")
"""
UNRELATED = 10


def _unrelated_module(root: Path, name: str) -> None:
    """``name``.py with a function ``name`` (``helper.shift``'s code), and ``UNRELATED``
    tests of it that reach nothing else."""
    (root / f"{name}.py").write_text(SHIFT.replace("shift", name))
    tests = "\n".join(
        f"def test_{name}_{i}():\n    assert {name}({i}) == {i + 1}\n" for i in range(UNRELATED)
    )
    (root / f"test_{name}.py").write_text(f"from {name} import {name}\n\n" + tests)


@pytest.mark.slow  # three analyses, ~6-15 s
def test_an_import_time_edit_observes_only_the_tests_that_may_see_it(tmp_path: Path) -> None:
    # make_names ran at import; shout (edited in the same save) has an undetected verdict,
    # so it is observed again. The tests that may see what make_names computed at import
    # are known (those of its entry); the ten tests of helper.py can neither see that nor
    # reach shout, and are not observed again.
    from lsp_server.extreme.analysis import Options, analyse
    from lsp_server.extreme.warm import WarmPools

    root = tmp_path / "project"
    root.mkdir()
    (root / "names.py").write_text(NAMES)
    (root / "test_names.py").write_text(NAMES_TESTS)
    _unrelated_module(root, "helper")
    paths = [root / "names.py", root / "helper.py"]
    warm = WarmPools()
    try:
        last = analyse(root, Options(jobs=1, paths=paths), warm=warm)
        assert "names.py::make_names" in last.import_time
        edited = NAMES.replace('["a", "b"]', '["b", "a"]').replace(".upper()", ".lower()")
        (root / "names.py").write_text(edited)
        change = saved_change(last, "names.py")
        assert change is not None
        assert set(change.changed) == {"names.py::make_names", "names.py::shout"}
        options = Options(jobs=1, paths=[root / f for f in change.files])
        options.only = change.to_analyse
        fresh = analyse(root, options, warm=warm)
    finally:
        warm.close()
    # test_accepts and test_shout observed, and at most those two run again to confirm a
    # detection: none of the unrelated ones.
    assert fresh.observed_tests <= 4
    out = merged(last, change, fresh)
    cold = analyse(root, Options(jobs=1, paths=paths, incremental=False))
    assert sorted(map(_row, out.results)) == sorted(map(_row, cold.results))


def _row(result: TransformationResult) -> tuple[str, str, Verdict]:
    t = result.transformation
    return t.function, t.body, result.verdict


@pytest.mark.slow  # two analyses, ~5-12 s
def test_a_reached_function_whose_detection_no_longer_stands_observes_only_its_tests(
    tmp_path: Path,
) -> None:
    # keep stops passing shift's result on: shift's detection (re-run at once, no test
    # observed) no longer stands, so shift is observed and analysed in full. Only the
    # tests that ran keep or shift can reach it now: not the ten tests of other.py.
    from lsp_server.extreme.analysis import Options, analyse
    from lsp_server.extreme.warm import WarmPools

    keep = "def keep(v):\n    w = v\n    return w\n"
    root = _keep_project(tmp_path, keep)
    _unrelated_module(root, "other")
    paths = [root / "m.py", root / "helper.py"]
    warm = WarmPools()
    try:
        last = analyse(root, Options(jobs=1, paths=paths), warm=warm)
        assert _verdicts(last, "shift") == {Verdict.DETECTED}
        (root / "m.py").write_text(keep.replace("w = v", "w = 2"))
        change = saved_change(last, "m.py")
        assert change is not None and change.reached == ["helper.py::shift"]
        only = change.to_analyse
        fresh = analyse(root, Options(jobs=1, paths=paths, only=only), warm=warm)
    finally:
        warm.close()
    assert _verdicts(fresh, "shift") == {Verdict.UNDETECTED}
    assert fresh.observed_tests <= 2  # test_keep, and maybe once more to confirm
