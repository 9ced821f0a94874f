"""A file that Python parses but rope fails on is skipped and reported, not fatal to the
refactoring (issue 15 item 12: renaming ``functools`` in a copy of the standard library)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.model import FileEdit, RefactoringError
from tests.refactor.test_encodings import rename_double

# rope's token matcher takes the "#" in the second string for a comment.
ROPE_FAILS_ON = """\
from geometry.util import double


def shout(x):
    print(
        f"{x} is"
        "a #tag",
        DeprecationWarning,
    )
    return double(x)
"""


def test_a_file_rope_fails_on_is_skipped_and_reported(
    engine: RefactorEngine, project: Path
) -> None:
    tricky = project / "geometry/tricky.py"
    tricky.write_text(ROPE_FAILS_ON)
    util = project / "geometry/util.py"
    result = rename_double(engine, project)
    assert [s.path for s in result.skipped_files] == [str(tricky)]
    assert "rope failed on it" in result.skipped_files[0].reason
    edited = {e.path for e in result.edits if isinstance(e, FileEdit)}
    assert str(util) in edited and str(tricky) not in edited


def test_rope_failing_on_the_file_asked_for_is_still_an_error(
    engine: RefactorEngine, project: Path
) -> None:
    util = project / "geometry/util.py"
    util.write_text(util.read_text() + "\n\n" + ROPE_FAILS_ON.split("\n", 1)[1])
    with pytest.raises(RefactoringError):
        rename_double(engine, project)
