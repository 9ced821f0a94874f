"""A kept child runs the next transformations while its tests leave no state behind, and
never gives a verdict a fresh child would not: real analyses, real forks, real pytest."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Options, analyse

from .conftest import verdict_rows

PIDS = "REKS_TEST_PIDS"
"""A file outside the project where each test run appends the pid of its process."""

NOTE_PID = """
import os

def note_pid():
    with open(os.environ["REKS_TEST_PIDS"], "a") as out:
        out.write(f"{os.getpid()}\\n")
"""

NOTE_NAMED_PID = NOTE_PID.replace('f"{os.getpid()}', 'f"{name} {os.getpid()}').replace(
    "note_pid()", "note_pid(name)"
)
"""``note_pid(name)``: each test run appends its name and the pid of its process."""

TWO_SHAPES = """
def area(w, h):
    result = w * h
    return result

def perimeter(w, h):
    result = 2 * (w + h)
    return result
"""

TWO_SHAPE_TESTS = """
from pids import note_pid
from shapes import area, perimeter

def test_area():
    note_pid("shapes")
    assert area(2, 3) == 6

def test_perimeter():
    note_pid("shapes")
    assert perimeter(2, 3) == 10
"""


def _analysed(
    root: Path, pids: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[tuple[str, str], str], list[str]]:
    """The verdicts of one analysis (one worker) by function and body, and the pid of the
    process of each test run, in order (the observation run's first)."""
    monkeypatch.setenv(PIDS, str(pids))
    pids.write_text("")
    analysis = analyse(root, Options(jobs=1, incremental=False))
    rows = verdict_rows(analysis)
    return {(function, body): verdict for function, body, verdict in rows}, pids.read_text().split()


def test_transformations_whose_tests_leave_no_state_share_one_child(
    make_project: Callable[[dict[str, str]], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = make_project(
        {
            "shapes.py": """
                def area(w, h):
                    result = w * h
                    return result

                def perimeter(w, h):
                    result = 2 * (w + h)
                    return result

                def is_square(w, h):
                    same = w == h
                    return same
            """,
            "pids.py": NOTE_PID,
            "test_shapes.py": """
                from pids import note_pid
                from shapes import area, perimeter, is_square

                def test_area():
                    note_pid()
                    assert area(2, 3) == 6

                def test_perimeter():
                    note_pid()
                    assert perimeter(2, 3) == 10

                def test_is_square():
                    note_pid()
                    assert is_square(2, 2)
                    assert not is_square(2, 3)
            """,
        }
    )
    verdicts, pids = _analysed(root, tmp_path / "pids.txt", monkeypatch)
    assert verdicts == {
        ("note_pid", "pass"): "undetected",
        ("area", "return 0"): "detected",
        ("area", "return 1"): "detected",
        ("perimeter", "return 0"): "detected",
        ("perimeter", "return 1"): "detected",
        ("is_square", "return True"): "detected",
        ("is_square", "return False"): "detected",
    }
    # The observation run's child (3 tests), then one kept child for the 6 detected
    # transformations' runs (a fresh child per transformation: 6 more processes).
    assert len(pids) == 9
    assert len(set(pids)) == 2


def test_a_global_counter_left_behind_gives_the_next_run_a_fresh_child(
    make_project: Callable[[dict[str, str]], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``test_ids`` passes only in a process where it never ran: in a child kept after it,
    ``note -> pass`` (pseudo-tested) would be detected by ``next_id() == 1`` failing."""
    root = make_project(
        {
            "ids.py": """
                _count = 0
                seen = []

                def next_id():
                    global _count
                    _count += 1
                    return _count

                def label(n):
                    text = "item-%d" % n
                    return text

                def note(event):
                    event = event.strip()
                    seen.append(event)
            """,
            "pids.py": NOTE_PID,
            "test_ids.py": """
                from ids import label, next_id, note
                from pids import note_pid

                def test_ids():
                    note_pid()
                    assert next_id() == 1
                    note("made")
                    assert label(2) == "item-2"
            """,
        }
    )
    verdicts, pids = _analysed(root, tmp_path / "pids.txt", monkeypatch)
    assert verdicts[("note", "pass")] == "undetected"
    assert verdicts[("next_id", "return 1")] == "undetected"
    assert verdicts[("next_id", "return 0")] == "detected"
    assert verdicts[("label", 'return ""')] == "detected"
    assert verdicts[("label", 'return "A"')] == "detected"
    # ``next_id -> return 0`` fails before counting: its child is kept for the next run.
    assert len(set(pids)) < len(pids)


def test_a_cache_filled_by_a_run_gives_the_next_run_a_fresh_child(
    make_project: Callable[[dict[str, str]], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run of ``double -> return 0`` leaves ``quad(3) == 0`` in the cache: a kept child
    would detect ``shout -> pass`` (pseudo-tested) by the cached wrong value."""
    root = make_project(
        {
            "calc.py": """
                import functools

                def double(x):
                    twice = x * 2
                    return twice

                @functools.lru_cache(maxsize=None)
                def quad(x):
                    four_times = double(double(x))
                    return four_times

                def shout(text):
                    print(text.upper())
            """,
            "pids.py": NOTE_PID,
            "test_calc.py": """
                from calc import quad, shout
                from pids import note_pid

                def test_quad():
                    note_pid()
                    assert quad(3) == 12
                    shout("done")
            """,
        }
    )
    verdicts, pids = _analysed(root, tmp_path / "pids.txt", monkeypatch)
    assert verdicts == {
        ("double", "return 0"): "detected",
        ("double", "return 1"): "detected",
        ("quad", "return 0"): "detected",
        ("quad", "return 1"): "detected",
        ("shout", "pass"): "undetected",
        ("note_pid", "pass"): "undetected",
    }
    assert len(set(pids)) == len(pids)  # every run called the cache: a child each


def test_a_later_run_records_what_a_fresh_childs_run_records(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    """``scale`` (of a conftest: no target) ran at collection, while the worker's recorder
    saw each code start once and then turned its event off: a forked child's run log finds
    it off and does not report it (3.12), or reports it (3.10, 3.11: no such events). The
    second run of a kept child, which turns the events on again to see what it runs, must
    report what the first (as a forked child) did: ``area``'s two transformations are
    detected by the same test, in one child."""
    root = make_project(
        {
            "shapes.py": """
                def area(w, h):
                    result = w * h
                    return result
            """,
            "conftest.py": """
                def scale(x):
                    factor = 1
                    return x * factor

                UNIT = scale(1)
            """,
            "test_shapes.py": """
                from conftest import UNIT, scale
                from shapes import area

                def test_area():
                    assert area(2, scale(3)) == 6 * UNIT
            """,
        }
    )
    analysis = analyse(root, Options(jobs=1, incremental=False))
    units = {r.transformation.body: r.units for r in analysis.results}
    assert set(units) == {"return 0", "return 1"}
    assert units["return 0"] == units["return 1"]


def test_a_resource_read_by_every_test_keeps_the_child(
    make_project: Callable[[dict[str, str]], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A package's resource read through ``importlib.resources`` makes the import system
    import ``importlib.readers`` at the first read (humanize's locale path): the same in
    every child, so no state left behind that retires a kept child."""
    root = make_project(
        {
            "shapes/__init__.py": """
                import importlib.resources

                def label_file():
                    found = importlib.resources.files(__name__) / "label.txt"
                    return found

                def area(w, h):
                    result = w * h
                    return result

                def perimeter(w, h):
                    result = 2 * (w + h)
                    return result
            """,
            "shapes/label.txt": "shape\n",
            "pids.py": NOTE_PID,
            "test_shapes.py": """
                from pids import note_pid
                from shapes import area, label_file, perimeter

                def test_area():
                    note_pid()
                    assert label_file().read_text().strip() == "shape"
                    assert area(2, 3) == 6

                def test_perimeter():
                    note_pid()
                    assert label_file().read_text().strip() == "shape"
                    assert perimeter(2, 3) == 10
            """,
        }
    )
    verdicts, pids = _analysed(root, tmp_path / "pids.txt", monkeypatch)
    assert verdicts[("area", "return 0")] == "detected"
    assert verdicts[("perimeter", "return 1")] == "detected"
    assert verdicts[("label_file", "return None")] == "detected"
    # The observation run's child (2 tests), then one kept child for every detection.
    detections = sum(1 for verdict in verdicts.values() if verdict == "detected")
    assert len(pids) == 2 + detections
    assert len(set(pids)) == 2


def test_runs_of_tests_known_to_leave_state_fork_and_the_others_keep_their_child(
    make_project: Callable[[dict[str, str]], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``test_log`` leaves an entry in ``journal.entries`` whatever the transformation (as
    humanize's tests leave a translation cache filled): after its first run retires a kept
    child, its later runs go the forked way at once, and the shapes' runs, after them, still
    share one kept child (the worker used to fork per transformation for good after three
    kept children in a row had run one transformation each)."""
    root = make_project(
        {
            "journal.py": """
                entries = []

                def stamp(text):
                    marked = "* " + text
                    return marked

                def shorten(text):
                    short = text[:3]
                    return short
            """,
            "shapes.py": TWO_SHAPES,
            "pids.py": NOTE_NAMED_PID,
            "test_journal.py": """
                import journal
                from pids import note_pid

                def test_log():
                    note_pid("log")
                    journal.entries.append(journal.stamp("made"))
                    assert journal.shorten(journal.entries[-1]) == "* m"
            """,
            "test_shapes.py": TWO_SHAPE_TESTS,
        }
    )
    verdicts, noted = _analysed(root, tmp_path / "pids.txt", monkeypatch)
    detected = {key for key, verdict in verdicts.items() if verdict == "detected"}
    assert {("stamp", 'return ""'), ("shorten", 'return ""')} <= detected
    assert {("area", "return 0"), ("perimeter", "return 1")} <= detected
    runs = list(zip(noted[::2], noted[1::2], strict=True))
    observed = {pid for name, pid in runs[:3]}  # the observation run's child: all 3 tests
    journal = [pid for name, pid in runs[3:] if name == "log"]
    shapes = [pid for name, pid in runs[3:] if name == "shapes"]
    assert len(journal) >= 4 and len(shapes) == 4
    assert len(set(journal)) == len(journal)  # each run of test_log in a fresh child
    assert len(set(shapes)) == 1  # the shapes' runs in one kept child
    assert observed.isdisjoint(journal + shapes)


def test_a_test_module_importing_pytest_mark_still_shares_a_kept_child(
    make_project: Callable[[dict[str, str]], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``from pytest import mark`` (boltons' test modules) reached pytest's configuration,
    and through it the session and every collected test: with enough tests the state was
    too large to read, and the worker forked per transformation."""
    root = make_project(
        {
            "shapes.py": TWO_SHAPES,
            "pids.py": NOTE_NAMED_PID,
            "test_shapes.py": TWO_SHAPE_TESTS
            + """
from pytest import mark

@mark.parametrize("n", range(600))
def test_counts(n):
    assert n >= 0
""",
        }
    )
    verdicts, noted = _analysed(root, tmp_path / "pids.txt", monkeypatch)
    pids = noted[1::2]
    assert verdicts[("area", "return 0")] == "detected"
    assert verdicts[("perimeter", "return 1")] == "detected"
    detections = sum(1 for verdict in verdicts.values() if verdict == "detected")
    assert detections == 4
    # The observation run's child (2 tests noted), then one kept child for every detection.
    assert len(pids) == 2 + detections
    assert len(set(pids)) == 2


def test_a_test_seen_passing_in_a_clean_run_is_no_suspect_of_a_run_that_left_state(
    make_project: Callable[[dict[str, str]], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``touch -> pass`` runs ``test_area`` and ``test_log`` in one run, which leaves state
    (``test_log``'s). ``test_area`` passed in a kept child's run that left none before it
    (``mark -> pass``): so ``double``'s runs, of ``test_area`` alone, after it, still share
    one kept child."""
    root = make_project(
        {
            "a.py": """
                def mark(x):
                    marked = x
            """,
            "b.py": """
                def touch(x):
                    seen = x
            """,
            "c.py": """
                def double(x):
                    twice = 2 * x
                    return twice
            """,
            "journal.py": "entries = []\n",
            "pids.py": NOTE_NAMED_PID,
            "test_shapes.py": """
                import journal
                from a import mark
                from b import touch
                from c import double
                from pids import note_pid

                def test_area():
                    note_pid("area")
                    mark(1)
                    touch(1)
                    assert double(4) == 8

                def test_log():
                    note_pid("log")
                    touch(2)
                    journal.entries.append(1)
            """,
        }
    )
    verdicts, noted = _analysed(root, tmp_path / "pids.txt", monkeypatch)
    assert verdicts[("mark", "pass")] == "undetected"
    assert verdicts[("touch", "pass")] == "undetected"
    assert verdicts[("double", "return 0")] == "detected"
    assert verdicts[("double", "return 1")] == "detected"
    area_runs = [pid for name, pid in zip(noted[::2], noted[1::2], strict=True) if name == "area"]
    # The observation run, mark's, touch's (kept, then again in a fresh child as a later
    # undetected verdict), double's two: the last two in one kept child.
    assert len(area_runs) == 6
    assert area_runs[-1] == area_runs[-2]
