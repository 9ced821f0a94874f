"""A top-level assignment of a standard-library constructor called with constant arguments
that makes a new object and registers it nowhere (``contextvars.ContextVar("name")``) is a
binding its readers alone see, as a constant ``namedtuple`` is (``rts.constant_calls``), on
real pytest sessions: it is tried at analysis time, and one that raises there keeps the
statement in the module unit every importer depends on."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "state.py",
        """
        import contextvars
        from contextvars import ContextVar

        CURRENT: contextvars.ContextVar[int] = contextvars.ContextVar("current", default=0)
        DEPTH = ContextVar("depth", default=1)


        def current():
            return CURRENT.get()


        def depth():
            return DEPTH.get()


        def helper():
            return 1
        """,
    )
    write(
        pytester,
        "test_state.py",
        """
        def test_current():
            import state  # at run time: a failing import fails the test, not collection

            assert state.current() == 0


        def test_depth():
            import state

            assert state.depth() == 1


        def test_helper():
            import state

            assert state.helper() == 1
        """,
    )
    assert run(pytester) == {"test_current", "test_depth", "test_helper"}
    return pytester


def test_a_new_context_variable_selects_nothing(project: pytest.Pytester) -> None:
    edit(
        project,
        "state.py",
        "def helper",
        'OTHER: contextvars.ContextVar[tuple[int, str]] = contextvars.ContextVar("other")\n\n\n'
        "def helper",
    )
    assert run(project) == set()


def test_a_changed_context_variable_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "state.py", '"current", default=0', '"current_value", default=0')
    assert run(project) == {"test_current"}
    edit(project, "state.py", '"depth", default=1', '"depth_value", default=1')
    assert run(project) == {"test_depth"}


@pytest.mark.parametrize(
    "bad",
    [
        "contextvars.ContextVar(1)",  # the name must be a string: TypeError at import
        "contextvars.ContextVar(NAME)",  # not computed here: unknown until import
    ],
)
def test_a_context_variable_that_may_raise_selects_every_importer(
    project: pytest.Pytester, bad: str
) -> None:
    edit(project, "state.py", "def helper", f"OTHER = {bad}\n\n\ndef helper")
    assert run(project) == {"test_current", "test_depth", "test_helper"}
