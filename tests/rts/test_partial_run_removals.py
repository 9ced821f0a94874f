"""A session that runs only some tests still brings the files it saw to the store. When
one of them no longer binds a name another module takes with ``from m import name``, the
tests importing that module fail in a full run: the session marks them stale, or the
next selection, which compares against the synced file, would never see the removal."""

from __future__ import annotations

import importlib

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def test_a_removal_seen_by_a_partial_run_selects_the_importers_later(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "mod.py", "X = 1\n\n\ndef g():\n    return 2\n")
    write(pytester, "user.py", "from mod import X\n\n\ndef f():\n    return 1\n")
    write(pytester, "test_user.py", "import user\n\n\ndef test_f():\n    assert user.f() == 1\n")
    write(pytester, "test_other.py", "import mod\n\n\ndef test_o():\n    assert mod.g() == 2\n")
    assert run(pytester) == {"test_f", "test_o"}
    edit(pytester, "mod.py", "X = 1\n", "")
    edit(pytester, "mod.py", "return 2", "return 1 + 1")
    assert run(pytester, "test_other.py") == {"test_o"}
    importlib.invalidate_caches()
    result = pytester.runpytest_inprocess("--reks")
    result.assert_outcomes(errors=1)  # test_user.py fails to import, as in a full run
    assert "cannot import name 'X'" in result.stdout.str()
