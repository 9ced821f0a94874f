"""A covering test's id that is gone under a transformation. A test function that can no
longer be collected is a detection (the developer sees it go); a parametrized test whose
ids changed (its parameters are made by the transformed code) still runs, under its new
ids, and only their outcome says whether the suite detects the transformation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.model import Transformation, Verdict
from lsp_server.extreme.on_disk import PrivateCopy

# ``label`` runs at collection (it makes the parameter, and so the test's id) and in the
# test, which checks only that it gives text: ``return ""`` and ``return "A"`` change the
# id (``[B]`` becomes ``[]`` and ``[A]``) and pass.
MOD = """
def label(word):
    text = word.strip()
    return text.upper()
"""

PARAMETRIZED = """
import pytest

import mod


@pytest.mark.parametrize("word", [mod.label("b")])
def test_label_is_text(word):
    assert isinstance(mod.label(word), str)
"""

# A test defined only while ``label`` shouts: under ``return "A"`` it is not collected.
CONDITIONAL = """
import mod

if mod.label("b") == "B":

    def test_only_while_labels_shout():
        assert mod.label("c")
"""


def test_changed_parametrization_ids_run_under_their_new_ids_in_the_analysis(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"mod.py": MOD, "test_mod.py": PARAMETRIZED})
    analysis = analyse(root, Options(jobs=1, incremental=False))
    assert [r.transformation.body for r in analysis.results] == ['return ""', 'return "A"']
    for result in analysis.results:
        assert result.verdict is Verdict.UNDETECTED, result
        assert "test_mod.py::test_label_is_text[B]" in result.reason
        assert "ids changed" in result.reason, result.reason


def test_changed_parametrization_ids_run_under_their_new_ids_on_disk(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"mod.py": MOD, "test_mod.py": PARAMETRIZED})
    shouts = Transformation("mod.py", "label", 2, 'return "A"')
    with PrivateCopy(root) as copy:
        checked = copy.run(shouts, ["test_mod.py::test_label_is_text[B]"], 60.0)
    assert checked.verdict is Verdict.UNDETECTED, checked
    assert "ids changed" in checked.detail and "test_label_is_text[B]" in checked.detail


def test_a_test_no_longer_collected_is_a_detection_that_says_so_on_disk(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"mod.py": MOD, "test_mod.py": CONDITIONAL})
    shouts = Transformation("mod.py", "label", 2, 'return "A"')
    with PrivateCopy(root) as copy:
        checked = copy.run(shouts, ["test_mod.py::test_only_while_labels_shout"], 60.0)
    assert checked.verdict is Verdict.DETECTED, checked
    assert "no longer collected" in checked.detail, checked.detail


def test_a_test_no_longer_collected_is_a_detection_in_the_analysis(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"mod.py": MOD, "test_mod.py": CONDITIONAL})
    analysis = analyse(root, Options(jobs=1, incremental=False))
    shouting = [r for r in analysis.results if r.transformation.body == 'return "A"']
    assert [r.verdict for r in shouting] == [Verdict.DETECTED]
    assert "test_only_while_labels_shout is no longer collected" in shouting[0].reason
