"""A detected verdict is checked as an undetected one is: it says which test failed and
how, and ``--verify N`` also runs a sample of detected verdicts the plain way, reporting a
detection the plain way does not repeat as a defect of the analysis."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.model import Verdict

from .conftest import INC_MODULE


def test_a_detection_names_the_failing_test_its_phase_and_its_error(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "m.py": INC_MODULE,
            "test_m.py": """
                import pytest
                from m import inc

                @pytest.fixture
                def name():
                    return {2: "two"}[inc(1)]  # a KeyError in the set-up if inc is wrong

                def test_inc(name):
                    assert name == "two"
            """,
        }
    )
    analysis = analyse(root, Options(jobs=1))
    assert len(analysis.results) == 2
    for result in analysis.results:
        assert result.verdict is Verdict.DETECTED
        assert "test_m.py::test_inc" in result.reason
        assert "setup" in result.reason and "KeyError" in result.reason


def test_verify_also_runs_detected_verdicts_the_plain_way(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "m.py": INC_MODULE,
            "test_m.py": """
                from m import inc

                def test_inc():
                    assert inc(1) == 2
            """,
        }
    )
    analysis = analyse(root, Options(jobs=1, verify=2))
    assert [r.verdict for r in analysis.results] == [Verdict.DETECTED] * 2
    assert analysis.checked_on_disk == 2
    assert analysis.defects == []


def test_a_detection_the_plain_way_does_not_repeat_is_a_defect(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # A test that compares the loaded code with its file's: a change made in memory
    # fails it, the same change made on disk does not (the shape of a detection that only
    # the in-place model produces).
    root = make_project(
        {
            "m.py": INC_MODULE,
            "test_m.py": """
                import m

                def _code_in_file(name):
                    with open(m.__file__) as f:
                        module = compile(f.read(), m.__file__, "exec")
                    return next(c for c in module.co_consts if getattr(c, "co_name", "") == name)

                def test_loaded_code_matches_the_file():
                    m.inc(1)
                    assert m.inc.__code__.co_code == _code_in_file("inc").co_code
            """,
        }
    )
    analysis = analyse(root, Options(jobs=1, verify=2))
    assert len(analysis.defects) == 2, analysis.defects
    assert "m.py::inc -> return 0: detected in place but undetected on disk" in analysis.defects[0]
    assert [r.verdict for r in analysis.results] == [Verdict.UNDETECTED] * 2
    # The in-place reason is kept beside the disk's, so the wrong verdict carries its
    # cause: which test failed in place, in which phase, with which error.
    for defect, result in zip(analysis.defects, analysis.results, strict=True):
        assert "in place: test_m.py::test_loaded_code_matches_the_file failed" in defect
        assert "call: AssertionError" in defect
        assert "in place: test_m.py::test_loaded_code_matches_the_file failed" in result.reason
