"""The bytecode analyses of code objects are kept across sessions by the code's content
(``rts.kept_code_analyses``): a later session analyses no unchanged code again and
records the same dependencies; changed code is analysed again; answers another recording
code (or Python) wrote are never used."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import pytest

from lsp_server.rts.analysis_digest import ANALYSIS_DIR
from lsp_server.rts.file_units import Unit
from lsp_server.rts.kept_code_analyses import KEPT, KEPT_FILE
from lsp_server.rts.store import STORE_DIR, DependencyStore

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

_TESTS = ("test_pick", "test_shade", "test_describe")


def _project(pytester: pytest.Pytester) -> None:
    # A lookup by a name in a variable (``lookup_sites``), a read of code (``__doc__``:
    # ``read_lines``) and plain global reads (``code_reads``).
    write(
        pytester,
        "kinds.py",
        """
        RED = 1
        BLUE = 2


        class Palette:
            RED = 1
            BLUE = 2


        def pick(name):
            return getattr(Palette, name)


        def describe(function):
            return function.__doc__


        def shade():
            return RED
        """,
    )
    write(
        pytester,
        "test_kinds.py",
        """
        from kinds import describe, pick, shade

        def test_pick():
            assert pick("RED") == 1

        def test_shade():
            assert shade() in (1, 2)

        def test_describe():
            assert describe(shade) is None
        """,
    )


def _dependencies(root: Path) -> dict[str, set[Unit]]:
    store = DependencyStore(str(root), create=False, read_only=True)
    try:
        return {name: set(store.dependencies_of(f"test_kinds.py::{name}")) for name in _TESTS}
    finally:
        store.close()


def test_a_later_session_analyses_no_unchanged_code_again(pytester: pytest.Pytester) -> None:
    _project(pytester)
    assert run(pytester) == set(_TESTS)
    first_misses = KEPT.misses
    assert first_misses > 0
    first = _dependencies(pytester.path)
    assert run(pytester, flag="--reks-all") == set(_TESTS)
    assert KEPT.hits > 0
    # The 3.10/3.11 tracer compiles markers into the project's code: new content each
    # session, analysed again (what else ran is kept all the same).
    assert KEPT.misses == 0 if sys.version_info >= (3, 12) else KEPT.misses <= first_misses
    assert _dependencies(pytester.path) == first


def test_changed_code_is_analysed_again(pytester: pytest.Pytester) -> None:
    """Guard: the edited ``shade`` reads ``BLUE`` now; an answer kept for its old code
    (reads ``RED``) would leave ``BLUE`` out of its test's dependencies."""
    _project(pytester)
    run(pytester)
    edit(pytester, "kinds.py", "    return RED", "    return BLUE")
    assert run(pytester) == {"test_shade"}
    assert KEPT.misses > 0
    edit(pytester, "kinds.py", "BLUE = 2\n\n\nclass", "BLUE = 3\n\n\nclass")
    assert ran_and_failed(pytester) == ({"test_shade"}, {"test_shade"})


@pytest.mark.parametrize("header", ["written by other code", None])
def test_answers_of_other_recording_code_are_not_used(
    pytester: pytest.Pytester, header: str | None
) -> None:
    """Guard: answers under another code's digest (or a file cut short) are all analysed
    again, and the dependencies come out the same."""
    _project(pytester)
    run(pytester)
    first, analysed = _dependencies(pytester.path), KEPT.misses
    kept = pytester.path / STORE_DIR / ANALYSIS_DIR / KEPT_FILE
    data = kept.read_bytes()
    with kept.open("rb") as handle:
        pickle.load(handle)
        answers = pickle.load(handle)
    assert answers
    if header is None:
        kept.write_bytes(data[: len(data) // 2])
    else:
        kept.write_bytes(pickle.dumps(header) + pickle.dumps(answers))
    assert run(pytester, flag="--reks-all") == set(_TESTS)
    assert KEPT.misses == analysed  # as many as with nothing kept
    assert _dependencies(pytester.path) == first
