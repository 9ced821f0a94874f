"""The profile hook (3.10/3.11, or ``REKS_TRACER=profile``) is switched off by Python when
it raises, which a ``RecursionError`` does once the hook's own call is one frame too deep
(sqlparse's ``test_max_recursion``), and by a test that profiles with ``cProfile``. Every
later test was recorded with fewer dependencies than it has (sqlparse's
``test_split_semicolon``: 561 against 912) and skipped after a change to code it ran. The
hook is put back before the next test, and the test that lost it is recorded as stale: it
runs again next time."""

from __future__ import annotations

import sys

import pytest

from lsp_server.rts.profile_tracer import ProfileTracer

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def test_a_lost_hook_is_put_back_and_told() -> None:
    tracer = ProfileTracer(lambda filename: filename == __file__)
    tracer.start()
    try:
        hook = sys.getprofile()
        assert tracer.reinstate() is False
        sys.setprofile(None)
        assert tracer.reinstate() is True
        assert sys.getprofile() is hook
    finally:
        tracer.stop()
    assert tracer.reinstate() is False  # stopped: nothing to put back


@pytest.mark.parametrize(
    "losing",
    [
        "def recurse(n):\n        return recurse(n + 1)\n\n"
        "    with pytest.raises(RecursionError):\n        recurse(0)",
        "sys.setprofile(None)",
    ],
    ids=["recursion", "setprofile"],
)
def test_tests_after_one_that_lost_the_hook_keep_their_dependencies(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, losing: str
) -> None:
    monkeypatch.setenv("REKS_TRACER", "profile")
    write(pytester, "mod.py", "def work():\n    return 1\n\n\ndef other():\n    return 2\n")
    write(
        pytester,
        "test_lose.py",
        f"import sys\n\nimport pytest\n\n\ndef test_loses():\n    {losing}\n",
    )
    write(
        pytester,
        "test_work.py",
        "import mod\n\n\ndef test_work():\n    assert mod.work() == 1\n\n\n"
        "def test_other():\n    assert mod.other() == 2\n",
    )
    assert run(pytester, "-p", "no:randomly") == {"test_loses", "test_work", "test_other"}
    edit(pytester, "mod.py", "return 1", "return 1 + 0")
    # test_loses lost the hook: its record is incomplete, so it runs again.
    assert run(pytester, "-p", "no:randomly") == {"test_loses", "test_work"}
    assert run(pytester, "-p", "no:randomly") == {"test_loses"}
