"""``bench/rts_project.Project.pytest`` reads which tests passed and failed from pytest's
``-rA`` listing. A node id with a space (a parametrize id such as ``[a b]``) must come
back whole: cut at the space, it matched no test of the other run, and the replay called
hundreds of jmespath tests flaky and left them out of the violation count."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def rts_project(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))
    import rts_project

    return rts_project


def test_node_ids_with_spaces_are_listed_whole(rts_project: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "test_ids.py").write_text(
        "import pytest\n\n\n"
        '@pytest.mark.parametrize("x", ["a b", "c - d", "e"])\n'
        "def test_case(x):\n"
        '    assert x != "c - d", "no - dash"\n'
    )
    project = rts_project.Project("ids", tmp_path, Path(sys.executable), ["-p", "no:xdist"])
    run = project.pytest("-p", "no:cacheprovider")
    assert run.passed == {"test_ids.py::test_case[a b]", "test_ids.py::test_case[e]"}
    assert run.failed == {"test_ids.py::test_case[c - d]"}


def test_a_recording_run_and_a_listing_run_give_the_tools_the_same_options(
    rts_project: ModuleType, tmp_path: Path
) -> None:
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert True\n")
    project = rts_project.Project("same", tmp_path, Path(sys.executable), ["-p", "no:xdist"])
    assert project.pytest("--reks-all", listing=False).count == 1
    again = project.pytest("--reks")
    assert again.ran == set(), again.output  # nothing changed: nothing runs


def test_a_file_that_fails_to_collect_is_listed_as_failed(
    rts_project: ModuleType, tmp_path: Path
) -> None:
    # click 398f9154: a test file reading its project's metadata at collection errors when
    # the project runs from its checkout; the selecting run collected only that file, and
    # the replay stopped with "1 tests ran but none was listed".
    (tmp_path / "test_broken.py").write_text("raise ImportError('no metadata')\n")
    (tmp_path / "test_fine.py").write_text("def test_fine():\n    assert True\n")
    project = rts_project.Project("broken", tmp_path, Path(sys.executable), ["-p", "no:xdist"])
    alone = project.pytest("-p", "no:cacheprovider", "test_broken.py")
    assert alone.failed == {"test_broken.py"}, alone.output
    both = project.pytest("-p", "no:cacheprovider")
    assert both.failed == {"test_broken.py"} and both.passed == {"test_fine.py::test_fine"}


def test_a_conftest_that_cannot_import_stops_the_replay(
    rts_project: ModuleType, tmp_path: Path
) -> None:
    # marshmallow 29fa298a: tests/base.py imports pytz, which no --pip named; pytest loaded
    # no conftest and ran nothing (exit 4), and the replay went on counting 0 tests at every
    # commit for both tools: "0 violations" from a suite that never ran.
    (tmp_path / "conftest.py").write_text("import not_installed_anywhere\n")
    (tmp_path / "test_fine.py").write_text("def test_fine():\n    assert True\n")
    project = rts_project.Project("noconf", tmp_path, Path(sys.executable), ["-p", "no:xdist"])
    with pytest.raises(RuntimeError, match="not_installed_anywhere"):
        project.pytest("-p", "no:cacheprovider")
    with pytest.raises(RuntimeError, match="not_installed_anywhere"):
        project.pytest("-p", "no:cacheprovider", listing=False)
