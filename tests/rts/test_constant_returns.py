"""On 3.12+ a return site that returns a constant is reported once per test: its kind
cannot change, and its returns no longer use up a function's budget of recorded returns
per test (``RETURNS_PER_TEST``), which the sites returning values keep."""

from __future__ import annotations

import dis
import sys

import pytest

from lsp_server.rts.returns import RETURNS_PER_TEST
from lsp_server.rts.tracing import MonitoringTracer

pytestmark = pytest.mark.skipif(
    not hasattr(sys, "monitoring"), reason="sys.monitoring is Python 3.12+"
)


def _none_or_value(value: object) -> object:
    if value is None:
        return None
    return value


def test_constant_returns_leave_the_budget_to_the_other_sites() -> None:
    tracer = MonitoringTracer(__file__.__eq__)
    tracer.start()
    try:
        tracer.instrument(_none_or_value.__code__)
        for _ in range(RETURNS_PER_TEST + 8):
            _none_or_value(None)
        _none_or_value(1)
        _none_or_value("text")
        first = tracer.take_returns()
        tracer.take()  # the next test: every site reports again
        _none_or_value(None)
        second = tracer.take_returns()
    finally:
        tracer.stop()
    assert _kinds(first) == {"none", "int", "str"}
    assert _kinds(second) == {"none"}


def _kinds(returns: dict[int, tuple[object, set[str]]]) -> set[str]:
    [found] = [kinds for code, kinds in returns.values() if code is _none_or_value.__code__]
    return found


def test_the_constant_return_sites_of_a_function() -> None:
    from lsp_server.rts.returns import constant_returns

    code = _none_or_value.__code__
    assert [code.co_code[at] for at in constant_returns(code)] == [dis.opmap["RETURN_CONST"]]
    assert constant_returns(_kinds.__code__) == []
