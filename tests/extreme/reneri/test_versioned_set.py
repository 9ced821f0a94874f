"""Ground truth of the Reneri paper on its running example, in Python."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from lsp_server.extreme.model import Verdict
from lsp_server.extreme.reneri import diagnose
from lsp_server.extreme.reneri.assertion_check import verify_assertion
from lsp_server.extreme.reneri.edit import insert_assertion
from tests.support.reneri import rewrite_body, run_pytest, undetected

SOURCE = "versioned_set.py"
TESTS = [
    "test_versioned_set.py::test_add",
    "test_versioned_set.py::test_equals",
    "test_versioned_set.py::test_intersection",
]


def test_the_four_undetected_transformations_get_the_papers_symptoms(example: Path) -> None:
    results = [
        # The runner orders tests fastest first: the choice of test must not depend on it.
        undetected(example, SOURCE, "VersionedSet._increment_version", "pass", TESTS[::-1]),
        undetected(example, SOURCE, "VersionedSet.__eq__", "return True", TESTS),
        undetected(example, SOURCE, "VersionedSet.is_empty", "return True", TESTS),
        undetected(example, SOURCE, "VersionedSet.is_empty", "return False", TESTS),
    ]
    before = {p.name: p.read_bytes() for p in example.iterdir() if p.is_file()}
    increment, equals, empty_true, empty_false = diagnose(example, results, runs=3)

    assert increment.symptom == "weak-oracle"
    assert increment.test == "test_versioned_set.py::test_add"
    assert increment.assertion is not None
    assert increment.assertion.path == "test_versioned_set.py"
    assert increment.assertion.line == 6  # after ``s.add(1)``
    assert increment.assertion.text == "    assert s.version == 1"  # public, not s._version
    assert "assert s.version == 1" in increment.suggestion
    located = [d for d in increment.differences if d.stage == "propagation"]
    assert any(d.line == 6 and d.expression == "s.version" for d in located)
    assert all(d.original != d.transformed for d in increment.differences)

    assert equals.symptom == "no-infection"
    assert equals.test == "test_versioned_set.py::test_equals"
    assert "unequal pair" in equals.suggestion
    assert "test_equals" in equals.suggestion
    assert equals.differences == []

    assert empty_true.symptom == "no-propagation"
    assert "Test `VersionedSet.is_empty` directly" in empty_true.suggestion
    infected = empty_true.differences[0]
    assert (infected.stage, infected.expression) == ("infection", "result")
    assert (infected.original, infected.transformed) == ("False", "True")
    assert infected.line == 15  # ``assert one == other`` in test_equals

    assert empty_false.symptom == "no-infection"
    assert "returns True" in empty_false.suggestion

    for diagnosis in (increment, equals, empty_true, empty_false):
        json.dumps(diagnosis.to_json())  # serialisable as is
        assert diagnosis.runs == 3
    # Nothing on disk changed: the code was swapped in memory only.
    assert {p.name: p.read_bytes() for p in example.iterdir() if p.is_file()} == before


def test_inserted_assertion_detects_the_transformation(example: Path) -> None:
    result = undetected(example, SOURCE, "VersionedSet._increment_version", "pass", TESTS)
    (diagnosis,) = diagnose(example, [result], runs=2)
    assert diagnosis.assertion is not None
    # In memory, on a copy: passes on the original, fails on the transformed code ...
    assert verify_assertion(example, diagnosis).ok
    # ... which a wrong expected value does not.
    wrong = dataclasses.replace(
        diagnosis,
        assertion=dataclasses.replace(diagnosis.assertion, text="    assert s.version == 2"),
    )
    checked = verify_assertion(example, wrong)
    assert not checked.passes_on_original and checked.fails_on_transformed
    test_file = example / diagnosis.assertion.path
    test_file.write_text(
        insert_assertion(test_file.read_text(encoding="utf-8"), diagnosis.assertion),
        encoding="utf-8",
    )
    # The strengthened test passes on the original code ...
    assert run_pytest(example, TESTS[0]).returncode == 0
    # ... and fails on the transformed code: the transformation is now detected.
    rewrite_body(example, SOURCE, "VersionedSet._increment_version", "pass")
    failed = run_pytest(example, TESTS[0])
    assert failed.returncode == 1, failed.stdout
    assert "assert 0 == 1" in failed.stdout


def test_only_undetected_results_are_diagnosed(example: Path) -> None:
    detected = undetected(example, SOURCE, "VersionedSet.add", "pass", TESTS)
    detected.verdict = Verdict.DETECTED
    assert diagnose(example, [detected], runs=1) == []
