"""Test files whose every test is unaffected are not collected at all (not imported): a
run after a small edit costs what the affected files cost. What a file held is known only
from a run that collected all of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import edit, run, run_result, write

pytest_plugins = ["pytester"]


@pytest.fixture
def files(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    write(pytester, "lib.py", "def one():\n    return 1\n\n\ndef two():\n    return 2\n")
    for name, func in (("one", "one"), ("two", "two")):
        write(
            pytester,
            f"test_{name}.py",
            f"""
            import pathlib

            from lib import {func}

            # Each import of this module leaves a line in imports.log.
            with open(pathlib.Path(__file__).with_name("imports.log"), "a") as log:
                log.write("{name}\\n")


            def test_{name}():
                assert {func}() == {func}()


            def test_{name}_again():
                assert {func}()
            """,
        )
    return pytester


def imports(pytester: pytest.Pytester) -> list[str]:
    log = Path(pytester.path, "imports.log")
    lines = log.read_text().split() if log.exists() else []
    log.unlink(missing_ok=True)
    return sorted(lines)


def test_unaffected_files_are_not_imported(files: pytest.Pytester) -> None:
    assert run(files) == {"test_one", "test_one_again", "test_two", "test_two_again"}
    assert imports(files) == ["one", "two"]
    edit(files, "lib.py", "return 2", "return 1 + 1")
    assert run(files) == {"test_two", "test_two_again"}
    assert imports(files) == ["two"]
    result = run_result(files, "--reks")
    result.assert_outcomes()
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["reks: 0 selected; 4 unchanged not run: 4 in 2 files not collected*"]
    )
    assert imports(files) == []


def test_one_sentence_counts_what_pytest_deselected_and_what_it_never_collected(
    files: pytest.Pytester,
) -> None:
    write(
        files,
        "test_three.py",
        "from lib import one, two\n\n\n"
        "def test_three_one():\n    assert one()\n\n\n"
        "def test_three_two():\n    assert two()\n",
    )
    run_result(files, "--reks").assert_outcomes(passed=6)
    edit(files, "lib.py", "return 2", "return 1 + 1")
    result = run_result(files, "--reks")
    # pytest counts the test it deselected; reks adds the file it kept pytest from collecting
    result.assert_outcomes(passed=3, deselected=1)
    result.stdout.fnmatch_lines(
        [
            "reks: 3 selected; 3 unchanged not run: 1 deselected, 2 in 1 file not collected*",
            "*3 passed, 1 deselected*",
        ]
    )


def test_a_new_test_in_a_known_file_runs(files: pytest.Pytester) -> None:
    run(files)
    assert imports(files) == ["one", "two"]
    edit(
        files,
        "test_one.py",
        "def test_one_again",
        "def test_one_more():\n    pass\n\n\ndef test_one_again",
    )
    # The file is collected again (it changed); its other tests did not change.
    assert run(files) == {"test_one_more"}
    assert imports(files) == ["one"]


def test_a_keyword_run_still_learns_every_test_of_the_file(files: pytest.Pytester) -> None:
    assert run(files, "-k", "again") == {"test_one_again", "test_two_again"}
    # The other tests were collected but never ran: they are new, their files collected.
    assert run(files) == {"test_one", "test_two"}


def test_a_node_id_run_does_not_stand_for_the_whole_file(files: pytest.Pytester) -> None:
    assert run(files, "test_one.py::test_one") == {"test_one"}
    assert run(files) == {"test_one_again", "test_two", "test_two_again"}
    assert run(files) == set()
