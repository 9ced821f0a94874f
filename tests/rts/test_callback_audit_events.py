"""The tracer's callbacks raise no audit events of their own while a test runs: reks
installs an audit hook (files opened, code executed), and from then on every ``id()`` and
every ``frame.f_code`` in the process calls it (the ``builtins.id`` and
``object.__getattr__`` events). Keyed by ``id``, the callbacks called it a quarter of a
million times on marshmallow's tests. Checked on a real pytest session in a subprocess (an
audit hook cannot be removed)."""

from __future__ import annotations

import sys

import pytest

from .helpers import write

pytest_plugins = ["pytester"]

# Counts the events raised by reks's code while test bodies run.
_COUNTER = """
import sys

import pytest

RAISED = []
RUNNING = [False]


def _count(event, args):
    if event in ("builtins.id", "object.__getattr__") and RUNNING[0]:
        RUNNING[0] = False  # reading the caller's code raises an event too
        try:
            if "lsp_server" in sys._getframe(1).f_code.co_filename:
                RAISED.append(event)
        finally:
            RUNNING[0] = True


sys.addaudithook(_count)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    RUNNING[0] = True
    try:
        return (yield)
    finally:
        RUNNING[0] = False


def pytest_unconfigure(config):
    (config.rootpath / "raised.txt").write_text(" ".join(sorted(set(RAISED))))
"""


def test_callbacks_raise_no_audit_events(pytester: pytest.Pytester) -> None:
    write(pytester, "conftest.py", _COUNTER)
    write(
        pytester,
        "lib.py",
        """
        def double(x):
            return 2 * x


        def lookup(obj, name):
            return getattr(obj, name)
        """,
    )
    write(
        pytester,
        "test_lib.py",
        """
        import pytest

        import lib


        @pytest.mark.parametrize("n", range(20))
        def test_double(n):
            assert [lib.double(i) for i in range(n)] == [2 * i for i in range(n)]
            assert lib.lookup(lib, "double") is lib.double
        """,
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "--reks")
    result.assert_outcomes(passed=20)
    raised = set((pytester.path / "raised.txt").read_text().split())
    if sys.version_info < (3, 12):
        # The profile hook is handed a frame: the code that runs is read as frame.f_code.
        raised.discard("object.__getattr__")
    assert raised == set()
