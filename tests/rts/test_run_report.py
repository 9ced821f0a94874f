"""Reading a pytest run's counts and failures back from its output."""

from __future__ import annotations

from lsp_server.rts.run_report import Failure, read_run


def test_counts_and_failures_of_a_run() -> None:
    report = read_run(
        [
            "tests/test_a.py .F.E",
            "FAILED tests/test_a.py::test_two[1-2] - assert 3 == 4",
            "ERROR tests/test_a.py::test_four - fixture 'db' not found",
            "reks: 4 selected; 6 unchanged not run: 2 deselected, 4 in 1 file not collected",
            "==== 1 failed, 2 passed, 2 deselected, 1 error in 0.31s ====",
        ]
    )
    assert report.counts == {"failed": 1, "passed": 2, "deselected": 2, "error": 1}
    assert (report.passed, report.failed) == (2, 2)
    assert report.sentence() == "2 passed, 2 failed"
    assert report.failures == [
        Failure("tests/test_a.py::test_two[1-2]", "assert 3 == 4"),
        Failure("tests/test_a.py::test_four", "fixture 'db' not found", error=True),
    ]
    assert read_run(["no tests ran in 0.01s"]).sentence() == "0 passed, 0 failed"
