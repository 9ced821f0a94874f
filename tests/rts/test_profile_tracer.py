"""The profile hook of Python 3.10/3.11 (``ProfileTracer``, which runs on 3.12 too): it is
off while reks does its own work between tests, and records the returns of a function
per test as often as ``sys.monitoring`` does on 3.12+."""

from __future__ import annotations

import sys

from lsp_server.rts.returns import RETURNS_PER_TEST
from lsp_server.rts.tracing import ProfileTracer


def _work(value: int) -> int:
    return value + 1


def _other_work(value: int) -> str:
    return str(value)


def _only_this_file(filename: str) -> bool:
    return filename == __file__


def test_what_runs_while_paused_is_not_seen_and_the_hook_comes_back() -> None:
    tracer = ProfileTracer(_only_this_file)
    tracer.start()
    try:
        hook = sys.getprofile()
        with tracer.paused():
            assert sys.getprofile() is None
            _other_work(1)
        assert sys.getprofile() is hook
        _work(1)
        seen = tracer.take()
    finally:
        tracer.stop()
    ran = {code.co_name for code in seen.values()}
    assert "_work" in ran
    assert "_other_work" not in ran
    kinds = {code.co_name: found for code, found in tracer.take_returns().values()}
    assert kinds == {"_work": {"int"}}


def _int_then_str(value: int) -> int | str:
    return value if value < RETURNS_PER_TEST else str(value)


def test_returns_are_recorded_up_to_the_limit_per_test_as_on_3_12() -> None:
    tracer = ProfileTracer(_only_this_file)
    tracer.start()
    try:
        for value in range(RETURNS_PER_TEST + 5):
            _int_then_str(value)
        first = tracer.take_returns()
        tracer.take()  # the next test
        _int_then_str(RETURNS_PER_TEST)
        second = tracer.take_returns()
    finally:
        tracer.stop()
    assert [found for _, found in first.values()] == [{"int"}]
    assert [found for _, found in second.values()] == [{"str"}]
