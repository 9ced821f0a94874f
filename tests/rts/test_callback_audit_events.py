"""The tracer's callbacks raise no audit events of their own while a test runs: reks
installs an audit hook (files opened, code executed), and from then on every ``id()`` in
the process calls it (the ``builtins.id`` event). Keyed by ``id``, the callbacks called
it a quarter of a million times on marshmallow's tests. Checked on a real pytest session
in a subprocess (an audit hook cannot be removed)."""

from __future__ import annotations

import pytest

from .helpers import write

pytest_plugins = ["pytester"]

# Counts the ``builtins.id`` events raised by reks's code while test bodies run.
_COUNTER = """
import sys

import pytest

RAISED = []
RUNNING = [False]


def _count(event, args):
    if event == "builtins.id" and RUNNING[0]:
        caller = sys._getframe(1).f_code.co_filename
        if "lsp_server" in caller:
            RAISED.append(caller)


sys.addaudithook(_count)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    RUNNING[0] = True
    try:
        return (yield)
    finally:
        RUNNING[0] = False


def pytest_unconfigure(config):
    (config.rootpath / "raised.txt").write_text(str(len(RAISED)))
"""


def test_callbacks_raise_no_id_audit_events(pytester: pytest.Pytester) -> None:
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
    assert (pytester.path / "raised.txt").read_text() == "0"
