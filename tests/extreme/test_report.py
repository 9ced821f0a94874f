"""The extreme report says what a reader needs: how many functions are fully tested, how
many of the covering tests ran, and differences in words (no ``:None``, no ``<absent>``)."""

from __future__ import annotations

from pathlib import Path

from lsp_server.extreme.analysis import Analysis
from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.report import markdown, rows, summary_text, table

COVERING = ["t.py::test_a", "t.py::test_b", "t.py::test_c"]


def _analysis() -> Analysis:
    def result(
        function: str, body: str, verdict: Verdict, tests: list[str]
    ) -> TransformationResult:
        return TransformationResult(Transformation("m.py", function, 1, body), verdict, tests)

    analysis = Analysis(
        Path("/p"),
        results=[
            result("f", "pass", Verdict.DETECTED, COVERING[:1]),  # fully tested
            result("g", "pass", Verdict.UNDETECTED, COVERING),  # pseudo-tested
            result("h", "return 0", Verdict.DETECTED, COVERING[:2]),  # partially tested
            result("h", "return 1", Verdict.UNDETECTED, COVERING),
            result("k", "(any)", Verdict.SKIPPED, []),
        ],
    )
    analysis.covering = {f"m.py::{name}": list(COVERING) for name in ("f", "g", "h")}
    return analysis


def test_the_summary_counts_fully_tested_functions() -> None:
    text = summary_text(_analysis())
    assert text.startswith("4 functions: 1 fully tested, 1 pseudo-tested, 1 partially tested")


def test_the_tests_column_says_how_many_covering_tests_ran() -> None:
    data = rows(_analysis())
    text = table(data)
    assert "tests run" in text.splitlines()[0]
    assert "1 of 3" in next(line for line in text.splitlines() if " f " in f" {line} ")


def test_differences_read_as_words() -> None:
    data = rows(_analysis())
    undetected = next(r for r in data if r["function"] == "g")
    undetected.update(
        symptom="no-propagation",
        suggestion="test it directly",
        differences=[
            {"expression": "result", "path": "t.py", "line": None, "stage": "infection",
             "original": "<absent>", "transformed": "True"},
            {"expression": "x", "path": "t.py", "line": 4, "stage": "propagation",
             "original": "1", "transformed": "<absent>"},
        ],
    )  # fmt: skip
    text = markdown(_analysis(), data)
    assert ":None" not in text and "<absent>" not in text
    assert "`result` in a call from t.py (infection): not seen originally, True transformed" in text
    assert "`x` at t.py:4 (propagation): 1 originally, not seen transformed" in text
