"""Return kinds under the instrumented tracer (``rts.return_sites``, ``rts.return_notes``):
each return site hands its value to the tracer until its kind is known enough (a constant's
after one return, an expression's after ``RETURNS_PER_TEST`` returns of its function in a
test, until the next test), and the code behaves and reads as written."""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.rts.instrumented_tracer import InstrumentedTracer
from lsp_server.rts.returns import RETURNS_PER_TEST

from .helpers import traced_module

_MODULE = """
def echo(value):
    return value


def nothing():
    return None


def falls_off(flag):
    if flag:
        return "early"
    flag = 0


def failing(values):
    return (
        values[0]
        + values[1]
    )


def makers(n):
    return [lambda: i for i in range(n)], sum(x for x in range(n))
"""


@pytest.fixture
def returning(tmp_path: Path) -> Iterator[tuple[InstrumentedTracer, object]]:
    """A started tracer, and ``returning`` (``_MODULE``) imported under it."""
    with traced_module(tmp_path, "returning", _MODULE) as (tracer, module):
        tracer.take()
        tracer.take_returns()
        yield tracer, module


def _kinds(tracer: InstrumentedTracer) -> dict[str, set[str]]:
    return {code.co_name: kinds for code, kinds in tracer.take_returns().values()}


def test_kinds_are_noted_per_test_up_to_the_limit(
    returning: tuple[InstrumentedTracer, object],
) -> None:
    tracer, module = returning
    for n in range(RETURNS_PER_TEST):
        assert module.echo(n) == n  # type: ignore[attr-defined]
    assert module.echo("past the limit") == "past the limit"  # type: ignore[attr-defined]
    assert module.nothing() is None  # type: ignore[attr-defined]
    assert module.falls_off(True) == "early"  # type: ignore[attr-defined]
    assert module.falls_off(False) is None  # type: ignore[attr-defined]
    assert _kinds(tracer) == {"echo": {"int"}, "nothing": {"none"}, "falls_off": {"str", "none"}}
    tracer.take()  # the next test
    assert module.echo("again") == "again"  # type: ignore[attr-defined]
    assert module.nothing() is None  # type: ignore[attr-defined]
    # A constant's kind cannot change: it was noted for the whole session.
    assert _kinds(tracer) == {"echo": {"str"}}


def test_returns_read_and_fail_as_written(
    returning: tuple[InstrumentedTracer, object],
) -> None:
    tracer, module = returning
    source = inspect.getsource(module.failing)  # type: ignore[attr-defined]
    assert source.startswith("def failing(values):") and "__reks" not in source
    for _ in range(RETURNS_PER_TEST + 1):  # noted, then known
        with pytest.raises(TypeError) as raised:
            module.failing([1, "a"])  # type: ignore[attr-defined]
        last = traceback.extract_tb(raised.value.__traceback__)[-1]
        assert last.lineno == _MODULE.splitlines().index("        values[0]") + 1
        assert module.failing([1, 2]) == 3  # type: ignore[attr-defined]
    # The values copied into the noting branch have their own lambdas and generator
    # expressions: whichever runs is recorded.
    for _ in range(RETURNS_PER_TEST + 1):
        made, total = module.makers(2)  # type: ignore[attr-defined]
        assert [m() for m in made] == [1, 1] and total == 1
        ran = {code.co_name for code in tracer.take(restart=False).values()}
        assert {"makers", "<lambda>", "<genexpr>", "<listcomp>"} - ran <= {"<listcomp>"}


def test_after_recording_returns_are_not_noted(
    returning: tuple[InstrumentedTracer, object],
) -> None:
    tracer, module = returning
    tracer.stop()
    assert module.echo(1) == 1 and module.nothing() is None  # type: ignore[attr-defined]
    assert _kinds(tracer) == {}


def test_the_tests_returns_are_not_noted(tmp_path: Path) -> None:
    source = "def helper():\n    return 1\n"
    is_test = lambda path: path.endswith("test_returning.py")  # noqa: E731
    with traced_module(tmp_path, "test_returning", source, is_test) as (tracer, module):
        assert module.helper() == 1  # type: ignore[attr-defined]
        ran = {code.co_name for code in tracer.take().values()}
        assert "helper" in ran
        assert _kinds(tracer) == {}


def test_code_without_markers_makes_the_kinds_unknown(
    returning: tuple[InstrumentedTracer, object], tmp_path: Path
) -> None:
    tracer, _ = returning
    assert tracer.records_returns
    source_file = tmp_path / "elsewhere.py"
    source_file.write_text("def made_elsewhere():\n    return 1\n")
    exec(compile(source_file.read_text(), str(source_file), "exec"), {})
    # Its returns are not seen: the store is told no test has its kinds recorded.
    assert not tracer.records_returns


def test_a_nested_functions_returns_are_its_own(tmp_path: Path) -> None:
    # A ``def`` or generator among a function's statements is code of its own: its returns
    # were taken for the outer function's too (each wrapped twice), and its ``yield`` made
    # the outer function a generator whose returns went unnoted.
    source = (
        "def outer():\n"
        "    def inner():\n"
        "        return 'text'\n"
        "    def numbers():\n"
        "        yield 1\n"
        "    return inner\n"
    )
    with traced_module(tmp_path, "nesting", source) as (tracer, module):
        tracer.take()
        tracer.take_returns()
        inner = module.outer()  # type: ignore[attr-defined]
        assert inner() == "text"
        assert _kinds(tracer) == {"outer": {"other"}, "inner": {"str"}}
