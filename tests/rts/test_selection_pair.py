"""``select_with_and_without_fingerprint`` finds the changes once and answers exactly as
``select_affected_tests`` with the fingerprint and without one (the extreme analysis needs
both: its collection scope compares the environment, its store reading does not)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lsp_server.rts.fingerprint import current_fingerprint
from lsp_server.rts.select import (
    Selection,
    select_affected_tests,
    select_with_and_without_fingerprint,
)
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import DependencyStore

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def _answer(selection: Selection) -> tuple[object, ...]:
    return (
        {nodeid: str(reason) for nodeid, reason in selection.selected.items()},
        sorted(selection.unaffected),
        dict(selection.changed_units),
        selection.environment_change,
    )


def _project_with_an_edit(pytester: pytest.Pytester) -> None:
    write(pytester, "mod.py", "def f(x):\n    return x + 1\n\n\ndef g(x):\n    return x\n")
    write(
        pytester,
        "test_a.py",
        """
        from mod import f, g


        def test_f():
            assert f(1) == 2


        def test_g():
            assert g(2) == 2


        def test_failing():
            assert g(1) == 2
        """,
    )
    assert run(pytester) == {"test_f", "test_g", "test_failing"}
    edit(pytester, "mod.py", "x + 1", "1 + x")


@pytest.mark.parametrize("environment", ["the recorded one", "another one"])
def test_the_pair_answers_as_two_selections(pytester: pytest.Pytester, environment: str) -> None:
    _project_with_an_edit(pytester)
    fingerprint = current_fingerprint()
    if environment == "another one":
        fingerprint = replace(fingerprint, distributions="other packages")
    root = pytester.path
    with DependencyStore(root) as store:
        expected_with = select_affected_tests(root, store, fingerprint=fingerprint)
        expected_without = select_affected_tests(root, store)
        with_fingerprint, without = select_with_and_without_fingerprint(
            root, store, fingerprint, FileStates(root)
        )
    assert _answer(with_fingerprint) == _answer(expected_with)
    assert _answer(without) == _answer(expected_without)
    # The two answers differ when the environment did: the test means something.
    assert (_answer(with_fingerprint) == _answer(without)) == (environment != "another one")
