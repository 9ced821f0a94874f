"""Nondeterminism, hangs, private code, import bindings: real pytest runs in temp projects."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from lsp_server.extreme.reneri import diagnose
from lsp_server.jobs import Cancelled, Job
from tests.support.reneri import undetected, write_project

CLOCK = {
    "clock.py": """
        import random
        import tempfile
        import time


        class Stamp:
            def __init__(self):
                self.created = time.time()
                self.token = random.random()
                self.folder = tempfile.mkdtemp()
                self.label = repr(object())
                self.count = 0

            def touch(self):
                self.count += 1

            def is_valid(self):
                return True
        """,
    "test_clock.py": """
        import random

        from clock import Stamp


        def test_stamp(tmp_path):
            s = Stamp()
            s.touch()
            ok = s.is_valid()
            dice = [random.randint(1, 6) for _ in range(3)]
            where = tmp_path / s.label
            elapsed = s.created - 1.0
            assert ok
            assert len(dice) == 3 and where and elapsed
        """,
}
TEST = ["test_clock.py::test_stamp"]

LOOP = {
    "loop.py": """
        def done(state):
            return state["n"] >= 3


        def spin(state):
            while not done(state):
                state["n"] += 1
            return state["n"]
        """,
    "test_loop.py": """
        from loop import spin


        def test_spin():
            assert spin({"n": 0}) > 0
        """,
}


def test_time_and_randomness_yield_no_false_diagnosis(tmp_path: Path) -> None:
    root = write_project(tmp_path / "clock", CLOCK)
    valid = undetected(root, "clock.py", "Stamp.is_valid", "return True", TEST)
    touch = undetected(root, "clock.py", "Stamp.touch", "pass", TEST)
    diagnosis, touched = diagnose(root, [valid, touch], runs=3)
    # Time, random numbers, temp paths and object addresses differ between any two runs;
    # they vary within each side too and are ignored: nothing is left to differ.
    assert diagnosis.symptom == "no-infection", diagnosis.differences
    assert diagnosis.differences == []
    # The stable part of the same state still tells the sides apart.
    assert touched.symptom == "weak-oracle"
    assert touched.assertion is not None
    assert touched.assertion.text == "    assert s.count == 1"
    varying = ("created", "token", "folder", "label", "dice", "where", "elapsed")
    assert not any(word in d.expression for d in touched.differences for word in varying)


def test_a_single_run_cannot_tell_noise_from_a_difference(tmp_path: Path) -> None:
    """Why the runs are repeated: with one run per side the noise looks like a difference."""
    root = write_project(tmp_path / "clock", CLOCK)
    valid = undetected(root, "clock.py", "Stamp.is_valid", "return True", TEST)
    (diagnosis,) = diagnose(root, [valid], runs=1)
    assert diagnosis.symptom != "no-infection"
    assert any("created" in d.expression for d in diagnosis.differences)


def test_a_transformation_that_hangs_the_tests_is_killed(tmp_path: Path) -> None:
    root = write_project(tmp_path / "loop", LOOP)
    result = undetected(root, "loop.py", "done", "return False", ["test_loop.py::test_spin"])
    started = time.monotonic()
    (diagnosis,) = diagnose(root, [result], runs=2, timeout=2.0)
    assert time.monotonic() - started < 30
    assert diagnosis.symptom == "unknown"
    assert "timeout" in diagnosis.error


def test_cancelling_stops_a_running_diagnosis(tmp_path: Path) -> None:
    root = write_project(tmp_path / "loop", LOOP)
    result = undetected(root, "loop.py", "done", "return False", ["test_loop.py::test_spin"])
    job = Job()
    threading.Timer(1.0, job.cancel).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        diagnose(root, [result], runs=2, timeout=60.0, job=job)
    assert time.monotonic() - started < 15  # not the 2 x 60 s the runs were allowed


def test_private_function_gets_its_nearest_public_callers(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "words",
        {
            "words.py": """
                def _squash(text):
                    return " ".join(text.split())


                def _clean(text):
                    return _squash(text).strip()


                def normalize(text):
                    return _clean(text).lower()


                def same_words(a, b):
                    return normalize(a) == normalize(b)
                """,
            "test_words.py": """
                from words import same_words


                def test_same_words():
                    assert same_words("a  b", "a b")
                """,
        },
    )
    result = undetected(
        root, "words.py", "_squash", 'return ""', ["test_words.py::test_same_words"]
    )
    (diagnosis,) = diagnose(root, [result], runs=2)
    assert diagnosis.symptom == "no-propagation"
    assert [c.qualname for c in diagnosis.callers] == ["normalize"]
    assert diagnosis.callers[0].distance == 2  # through the private _clean
    assert "`normalize` (words.py:9)" in diagnosis.suggestion


def test_from_import_binding_and_closure_are_reached(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "calc",
        {
            "calc.py": """
                import functools


                def logged(fn):
                    @functools.wraps(fn)
                    def wrapper(*args):
                        return fn(*args)
                    return wrapper


                FACTOR = 2


                @logged
                def double(x):
                    return x * FACTOR


                def scaler(k):
                    def scale(x):
                        return x * k
                    return scale
                """,
            "test_calc.py": """
                from calc import double


                def test_double():
                    r = double(2)
                    assert r > 0
                """,
        },
    )
    result = undetected(root, "calc.py", "double", "return 1", ["test_calc.py::test_double"])
    (diagnosis,) = diagnose(root, [result], runs=2)
    assert diagnosis.symptom == "weak-oracle"
    assert diagnosis.assertion is not None
    assert (diagnosis.assertion.line, diagnosis.assertion.text) == (5, "    assert r == 4")


def test_an_attribute_the_transformation_never_sets_is_a_difference(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "config",
        {
            "config.py": """
                class Config:
                    def configure(self, mode):
                        self.mode = mode
                """,
            "test_config.py": """
                from config import Config


                def test_configure():
                    c = Config()
                    c.configure("fast")
                    assert c is not None
                """,
        },
    )
    tests = ["test_config.py::test_configure"]
    result = undetected(root, "config.py", "Config.configure", "pass", tests)
    (diagnosis,) = diagnose(root, [result], runs=2)
    assert diagnosis.symptom == "weak-oracle"
    assert diagnosis.assertion is not None
    assert diagnosis.assertion.text == "    assert c.mode == 'fast'"
    missing = [d for d in diagnosis.differences if d.expression == "c.mode"]
    assert missing and missing[0].transformed == "<absent>"


def test_assertion_in_a_loop_when_every_iteration_expects_the_same(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "stack",
        {
            "stack.py": """
                class Stack:
                    def __init__(self):
                        self.items = []

                    def push(self, item):
                        self.items.append(item)
                        return self

                    def reset(self):
                        self.items = []
                """,
            "test_stack.py": """
                import pytest

                from stack import Stack


                def test_reset_in_a_loop():
                    s = Stack()
                    for item in range(3):
                        s.push(item)
                        s.reset()
                    assert s is not None


                @pytest.mark.parametrize("n", [1, 2])
                def test_push(n):
                    s = Stack()
                    for item in range(n):
                        s.push(item)
                    assert s
                """,
        },
    )
    tests = ["test_stack.py::test_reset_in_a_loop"]
    reset = undetected(root, "stack.py", "Stack.reset", "pass", tests)
    (diagnosis,) = diagnose(root, [reset], runs=2)
    assert diagnosis.symptom == "weak-oracle"
    assert diagnosis.assertion is not None
    # Inside the loop, after ``s.push(item)``: 1 item every time, but 1, 2, 3 without reset.
    assert diagnosis.assertion.line == 9
    assert diagnosis.assertion.text == "        assert len(s.items) == 1"
    # Parametrized tests expecting different values get no assertion in their shared body.
    params = ["test_stack.py::test_push[1]", "test_stack.py::test_push[2]"]
    push = undetected(root, "stack.py", "Stack.push", "pass", params)
    (diagnosis,) = diagnose(root, [push], runs=2)
    assert diagnosis.symptom == "weak-oracle"
    assert diagnosis.assertion is None
    assert "`test_push[1]`" in diagnosis.suggestion
