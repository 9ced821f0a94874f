"""The profile hook of Python 3.10/3.11 (``ProfileTracer``, which runs on 3.12 too): it is
off while reks does its own work between tests, and records the returns of a function
per test as often as ``sys.monitoring`` does on 3.12+."""

from __future__ import annotations

import sys
import threading

from lsp_server.rts.profile_tracer import ProfileTracer
from lsp_server.rts.returns import RETURNS_PER_TEST
from lsp_server.rts.tracing import ReturnKinds


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


_code_reads: list[int] = []


def _count_code_reads(event: str, args: tuple[object, ...]) -> None:
    """An audit hook (it cannot be removed: it counts only while the list holds a slot)."""
    if _code_reads and event == "object.__getattr__" and args[1:] == ("f_code",):
        _code_reads[0] += 1


def test_the_hook_reads_each_frame_s_code_once() -> None:
    """``frame.f_code`` raises an audit event, a call of reks's own audit hook in Python on
    every read: the hook reads it at the call and not again at the return."""
    sys.addaudithook(_count_code_reads)
    tracer = ProfileTracer(_only_this_file)
    tracer.start()
    try:
        _code_reads.append(0)
        for value in range(1000):
            _work(value)
        reads = _code_reads.pop()
    finally:
        tracer.stop()
    assert 1000 <= reads < 1100


def _functions(returns: ReturnKinds) -> dict[str, set[str]]:
    """The kinds returned by name, comprehensions left out (functions of their own before
    3.12)."""
    return {code.co_name: found for code, found in returns.values() if code.co_name[0] != "<"}


def test_code_run_by_a_thread_is_seen_and_returns_after_the_limit_are_not_kept() -> None:
    tracer = ProfileTracer(_only_this_file)
    tracer.start()
    try:
        worker = threading.Thread(target=_other_work, args=(3,))
        worker.start()
        worker.join()
        for value in range(RETURNS_PER_TEST * 3):
            _work(value)
        seen = {code.co_name for code in tracer.take().values()}
        returns = tracer.take_returns()
        waiting = len(tracer._awaited)
        _int_then_str(RETURNS_PER_TEST)  # the next test: its returns are recorded again
        again = tracer.take_returns()
    finally:
        tracer.stop()
    assert {"_work", "_other_work"} <= seen
    assert _functions(returns) == {"_work": {"int"}, "_other_work": {"str"}}
    assert waiting <= 2  # this test's frame (and the hook's caller), not every call's
    assert _functions(again) == {"_int_then_str": {"str"}}
