"""A test may take ``sys._getframe`` away (attrs tests how it copes without one): what
reks runs inside the test (its warning filter, its audit hook, its cache and lazy-build
watches) keeps its own reference, so recording changes no outcome. attrs'
``test_missing_sys_getframe`` made a recording run end in an INTERNALERROR, and every test
after it went unrun. Real pytest sessions on a temporary project."""

from __future__ import annotations

import pytest

from .helpers import run_result, write

pytest_plugins = ["pytester"]

SHAPES = {
    "warning": "warnings.warn('careful', UserWarning)",
    "code_read": "assert (lambda: 1).__code__.co_argcount == 0",
    "cached_call": "assert functools.lru_cache(maxsize=None)(lambda x: x)(1) == 1",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_test_taking_getframe_away_records_like_any_other(
    pytester: pytest.Pytester, shape: str
) -> None:
    write(
        pytester,
        "test_frames.py",
        f"""
        import functools
        import sys
        import warnings


        def test_without_frames(monkeypatch):
            monkeypatch.delattr(sys, "_getframe")
            {SHAPES[shape]}


        def test_after():
            assert True
        """,
    )
    result = run_result(pytester, "--reks")
    assert "INTERNALERROR" not in result.stdout.str()
    result.assert_outcomes(passed=2)
