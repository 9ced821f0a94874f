"""The runner on real projects: real pytest sessions, real forks, real verdicts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.model import Verdict

from .conftest import LOOP_MODULE, REKS

Verdicts = dict[tuple[str, str], str]


def _verdicts(root: Path, **options: object) -> Verdicts:
    analysis = analyse(root, Options(jobs=2, **options))  # type: ignore[arg-type]
    return {
        (r.transformation.function, r.transformation.body): r.verdict.value
        for r in analysis.results
    }


def test_example_gives_the_papers_verdicts_through_the_cli(example: Path) -> None:
    before = {p.name: p.read_bytes() for p in example.glob("*.py")}
    out = subprocess.run(
        [*REKS, "extreme", "--json", "--jobs", "2"],
        cwd=example,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    rows = json.loads(out)
    verdicts = {(r["function"], r["transformation"]): r["verdict"] for r in rows}
    assert verdicts[("VersionedSet.add", "pass")] == "detected"
    assert verdicts[("VersionedSet.__eq__", "return False")] == "detected"
    assert verdicts[("VersionedSet.intersect", "return None")] == "detected"
    assert verdicts[("VersionedSet._increment_version", "pass")] == "undetected"
    assert verdicts[("VersionedSet.__eq__", "return True")] == "undetected"
    assert verdicts[("VersionedSet.is_empty", "return True")] == "undetected"
    assert verdicts[("VersionedSet.is_empty", "return False")] == "undetected"
    skipped = {r["function"]: r["reason"] for r in rows if r["verdict"] == "skipped"}
    assert set(skipped) == {"VersionedSet.size", "VersionedSet.contains", "VersionedSet.version"}
    for row in rows:
        assert {"function", "file", "line", "transformation", "verdict", "tests"} <= set(row)
        if row["verdict"] == "detected":
            # stop at the first failing test: it is the last one run
            assert row["tests"][-1] == row["detected_by"]
    add = next(r for r in rows if r["function"] == "VersionedSet.add")
    assert add["file"] == "versioned_set.py" and add["line"] == 9
    # test_add is the only test that catches it; tests run fastest first, so it may be
    # preceded by the others, which pass.
    assert add["detected_by"] == "test_versioned_set.py::test_add"
    assert json.loads((example / ".reks" / "extreme.json").read_text()) == rows
    assert "pseudo-tested" in (example / ".reks" / "extreme.md").read_text()
    assert {p.name: p.read_bytes() for p in example.glob("*.py")} == before


def test_infinite_loop_is_a_timeout(make_project: Callable[[dict[str, str]], Path]) -> None:
    root = make_project(
        {
            "loop.py": LOOP_MODULE,
            "test_loop.py": """
                from loop import advance

                def test_advance():
                    assert advance({"n": 0}) == 3
            """,
        }
    )
    started = time.monotonic()
    verdicts = _verdicts(root)
    assert verdicts[("ready", "return False")] == "timeout"
    assert verdicts[("ready", "return True")] == "detected"
    assert verdicts[("advance", "return 0")] == "detected"
    assert time.monotonic() - started < 60


def test_crash_of_the_test_process_is_detected(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "buffers.py": """
                import ctypes

                def address(buffer):
                    if buffer is None:
                        raise ValueError("no buffer")
                    return ctypes.addressof(buffer)
            """,
            "test_buffers.py": """
                import ctypes
                from buffers import address

                def test_read_back():
                    buf = ctypes.create_string_buffer(b"hi")
                    assert ctypes.string_at(address(buf), 2) == b"hi"
            """,
        }
    )
    analysis = analyse(root, Options(jobs=1))
    rows = {r.transformation.body: r for r in analysis.results}
    assert rows["return 0"].verdict is Verdict.DETECTED
    # Reading address 1 kills the test process with SIGSEGV: detected, and reks goes on.
    assert rows["return 1"].verdict is Verdict.DETECTED
    assert "crashed" in rows["return 1"].reason and "SIGSEGV" in rows["return 1"].reason


def test_methods_using_super_and_class_cells_are_analysed(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # A method using super() (or naming __class__) has a free variable, the class cell:
    # the new body must be compiled with the same free variables to be swapped in.
    root = make_project(
        {
            "shapes.py": """
                class Base:
                    def name(self, suffix):
                        text = "base" + suffix
                        return text

                class Child(Base):
                    def name(self, suffix):
                        text = super().name(suffix)
                        return text.upper()

                    def kind(self):
                        label = __class__.__name__
                        return label

                    async def fetch(self, suffix):
                        text = super().name(suffix)
                        return text

                def make_greeter(greeting):
                    def greet(name):
                        return greeting + name  # a closure over greeting
                    shout = greet("x")
                    return shout
            """,
            "test_shapes.py": """
                import asyncio
                from shapes import Child, make_greeter

                def test_name():
                    assert Child().name("!") == "BASE!"

                def test_kind():
                    assert Child().kind() == "Child"

                def test_fetch():
                    assert asyncio.run(Child().fetch("?")) == "base?"

                def test_greeter():
                    assert make_greeter("hi ") == "hi x"
            """,
        }
    )
    analysis = analyse(root, Options(jobs=1))
    verdicts = {
        (r.transformation.function, r.transformation.body): (r.verdict, r.reason)
        for r in analysis.results
    }
    for function in ("Child.name", "Child.kind", "Child.fetch", "make_greeter"):
        rows = {body: v for (f, body), v in verdicts.items() if f == function}
        assert rows, function
        assert all(verdict is Verdict.DETECTED for verdict, _ in rows.values()), (function, rows)
    assert {body for f, body in verdicts if f == "Child.name"} == {'return ""', 'return "A"'}
    base = [r for r in analysis.results if r.transformation.function == "Base.name"]
    assert all(r.verdict is Verdict.DETECTED for r in base)


def test_children_fork_from_an_unrun_parent_so_caches_do_not_leak(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "calc.py": """
                import functools

                @functools.lru_cache(maxsize=None)
                def square(x):
                    result = x * x
                    return result
            """,
            "test_calc.py": """
                from calc import square

                def test_square():
                    assert square(3) == 9

                def test_square_again():
                    assert square(3) == 9
            """,
        }
    )
    verdicts = _verdicts(root)
    assert verdicts[("square", "return 0")] == "detected"
    assert verdicts[("square", "return 1")] == "detected"


def test_incremental_reuse_and_invalidation(example: Path) -> None:
    first = analyse(example, Options(jobs=2))
    assert first.run_count == 8 and not first.reused
    second = analyse(example, Options(jobs=2))
    assert second.run_count == 0
    assert [(r.transformation, r.verdict) for r in second.results] == [
        (r.transformation, r.verdict) for r in first.results
    ]
    # Change code that only test_intersection executes: what test_equals alone covers
    # (is_empty, __eq__) keeps its verdicts, and so do __init__, whose transformed runs
    # fail before they reach the edit, and add, whose transformed runs start with
    # test_add (named after it) and fail there; the other transformations test_intersection
    # runs reach it and run again.
    source = example / "versioned_set.py"
    source.write_text(
        source.read_text().replace(
            "            if other.contains(item):\n",
            "            found = other.contains(item)\n            if found:\n",
        )
    )
    third = analyse(example, Options(jobs=2))
    assert third.reused == {
        "versioned_set.py::VersionedSet.is_empty",
        "versioned_set.py::VersionedSet.__eq__",
        "versioned_set.py::VersionedSet.__init__",
        "versioned_set.py::VersionedSet.add",
    }
    assert third.run_count == 2  # _increment_version, intersect
    assert [r.verdict for r in third.results] == [r.verdict for r in first.results]


def _running_children(reks_pid: int) -> int:
    """Forked test processes of the workers of the reks process ``reks_pid`` (its children,
    started as new interpreters or forked from it: their command lines differ)."""
    parents = {}
    for proc in Path("/proc").iterdir():
        try:
            parents[int(proc.name)] = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    workers = {pid for pid, ppid in parents.items() if ppid == reks_pid}
    return sum(ppid in workers for ppid in parents.values())


def test_original_file_untouched_after_kill(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "slow.py": """
                def scale(x, factor):
                    result = x * factor
                    return result
            """,
            "test_slow.py": """
                import time
                from slow import scale

                def test_scale():
                    time.sleep(0.7)
                    assert scale(2, 3) == 6
            """,
        }
    )
    source = root / "slow.py"
    before = (source.read_bytes(), source.stat().st_mtime_ns)
    process = subprocess.Popen(
        [*REKS, "extreme", "--jobs", "1"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 180  # collection first: slow on a loaded machine
    while _running_children(process.pid) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _running_children(process.pid) > 0  # a forked test process is running now
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert (source.read_bytes(), source.stat().st_mtime_ns) == before
    # The next run is not confused by the killed one.
    verdicts = _verdicts(root)
    assert verdicts[("scale", "return 0")] == "detected"


def test_failing_subtest_detects(make_project: Callable[[dict[str, str]], Path]) -> None:
    pytest.importorskip("pytest", minversion="9.0")  # subtests are built in from pytest 9
    root = make_project(
        {
            "parity.py": """
                def is_even(n):
                    remainder = n % 2
                    return remainder == 0
            """,
            "test_parity.py": """
                import unittest
                from parity import is_even

                class ParityTests(unittest.TestCase):
                    def test_values(self):
                        for n, expected in [(2, True), (3, False)]:
                            with self.subTest(n=n):
                                self.assertEqual(is_even(n), expected)
            """,
        }
    )
    verdicts = _verdicts(root)
    assert verdicts[("is_even", "return True")] == "detected"
    assert verdicts[("is_even", "return False")] == "detected"


def test_dependency_store_stands_in_for_the_observation_run(example: Path) -> None:
    (example / "test_other.py").write_text("def test_unrelated():\n    assert sum([1, 2]) == 3\n")
    without_store = analyse(example, Options(jobs=2, incremental=False))
    assert without_store.coverage_source == "observation"
    assert without_store.observed_tests == 4
    recorded = subprocess.run(
        [sys.executable, "-m", "pytest", "--reks", "-q", "-p", "no:cacheprovider"],
        cwd=example,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert recorded.returncode == 0, recorded.stdout
    with_store = analyse(example, Options(jobs=2, incremental=False))
    # Every covering test is unchanged since `pytest --reks` recorded what it ran and what
    # the functions returned: nothing is observed (test_unrelated never was a candidate).
    assert with_store.coverage_source == "store only"
    assert with_store.observed_tests == 0
    assert [(r.transformation, r.verdict) for r in with_store.results] == [
        (r.transformation, r.verdict) for r in without_store.results
    ]


def test_slow_session_fixture_is_not_a_timeout(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "conftest.py": """
                import time
                import pytest

                @pytest.fixture(scope="session", autouse=True)
                def database():
                    time.sleep(1.5)  # every fresh test process pays this once
                    yield
            """,
            "m.py": """
                def increment(x):
                    y = x + 1
                    return y
            """,
            "test_a.py": """
                def test_first():
                    assert True
            """,
            "test_b.py": """
                from m import increment

                def test_increment_runs():
                    increment(1)  # no assertion
            """,
        }
    )
    # One worker: test_first pays for the fixture in the observation run, and each
    # transformation's process pays for it again before test_increment_runs.
    analysis = analyse(root, Options(jobs=1))
    assert [(r.transformation.body, r.verdict) for r in analysis.results] == [
        ("return 0", Verdict.UNDETECTED),
        ("return 1", Verdict.UNDETECTED),
    ]


@pytest.mark.slow  # ~10-20 s: the Reneri diagnosis runs pytest processes per transformation
def test_explain_adds_the_diagnosis_to_undetected_rows(example: Path) -> None:
    out = subprocess.run(
        [*REKS, "extreme", "--json", "--explain", "--runs", "1", "--jobs", "2"],
        cwd=example,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    rows = json.loads(out)
    for row in rows:
        if row["verdict"] == "undetected":
            assert row["symptom"] in ("no-infection", "no-propagation", "weak-oracle")
            assert row["suggestion"]
            assert isinstance(row["differences"], list)
        else:
            assert "symptom" not in row
    weak = next(r for r in rows if r["function"] == "VersionedSet._increment_version")
    assert weak["symptom"] == "weak-oracle"
    assert "## Why they went undetected" in (example / ".reks" / "extreme.md").read_text()
