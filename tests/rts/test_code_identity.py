"""Code objects compare equal across files (same bytecode, names and first line): the
recorder must still credit each file."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

TWIN = """
def twin(x):
    return x + 1
"""


def test_equal_functions_of_two_files_are_both_dependencies(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(pytester, "left.py", TWIN)
    write(pytester, "right.py", TWIN)
    write(
        pytester,
        "test_twins.py",
        """
        import importlib


        def test_both():
            # Imported inside the test, so the static import closure does not name them.
            left = importlib.import_module("left")
            right = importlib.import_module("right")
            assert left.twin(1) == right.twin(1) == 2


        def test_none():
            assert True
        """,
    )
    assert run(pytester) == {"test_both", "test_none"}
    # Same length, so the twin stays equal to the other file's until it is edited.
    edit(pytester, "right.py", "x + 1", "1 + x")
    assert run(pytester) == {"test_both"}
    edit(pytester, "left.py", "x + 1", "1 + x")
    assert run(pytester) == {"test_both"}
