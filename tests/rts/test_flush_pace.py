"""Buffered results are written every 100 tests or once a second, and the second stretches
to twenty times what the last write took (``rts.flush_pace``): on a loaded machine each
write slows down and the bound came ever sooner (jinja: 252 writes for 909 tests). The
clock is given, nothing sleeps."""

from __future__ import annotations

from lsp_server.rts.flush_pace import FlushPace


def test_a_batch_closes_at_a_hundred_tests_or_after_a_second() -> None:
    pace = FlushPace(last=10.0)
    assert not pace.due(99, 10.5)
    assert pace.due(100, 10.5)
    assert pace.due(1, 11.01)


def test_a_slow_write_stretches_the_time_bound_and_a_quick_one_restores_it() -> None:
    pace = FlushPace(last=0.0)
    pace.wrote(started=5.0, ended=5.5)  # half a second: at most a twentieth of the run
    assert not pace.due(1, 6.6)
    assert not pace.due(1, 15.4)
    assert pace.due(1, 15.6)
    assert pace.due(100, 5.6)  # the count bound holds
    pace.wrote(started=20.0, ended=20.01)
    assert pace.due(1, 21.02)
