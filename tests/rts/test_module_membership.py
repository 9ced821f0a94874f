"""``name in sys.modules`` asks whether a module is loaded: the answer depends on what other
tests' files imported before, which any change anywhere may alter, as a listing of the
session's state does (``rts.session_listings``). ``rts.module_table_keys`` takes the
membership test for a keyed read of one module (no listing), and ``rts.lookup_sites``
for a lookup by string with no listing either, so a test asserting a module is not loaded
is not selected once another test's module starts importing it (sel34a: typeguard's
``_fixture_module`` reads ``if name in sys.modules:`` beside ``import_module(name)``; its
listing comes from the fetch, and making the membership a keyed read would lose it)."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]


@pytest.mark.xfail(
    strict=True,
    reason="a membership test of sys.modules is no session listing (rts.module_table_keys):"
    " test_not_loaded fails at the child and is not selected",
)
@pytest.mark.parametrize("key", ['"gam" + "ma"', '"gamma"'])
def test_a_module_another_file_starts_importing_selects_a_membership_test(
    pytester: pytest.Pytester, key: str
) -> None:
    write(pytester, "gamma.py", "VALUE = 1\n")
    write(pytester, "other.py", "def two():\n    return 2\n")
    write(pytester, "test_b.py", "import other\n\n\ndef test_b():\n    assert other.two() == 2\n")
    write(
        pytester,
        "test_a.py",
        f"""
        import sys


        def test_not_loaded():
            name = {key}
            loaded = name in sys.modules
            assert not loaded
        """,
    )
    assert run(pytester) == {"test_b", "test_not_loaded"}
    edit(pytester, "other.py", "def two", "import gamma\n\n\ndef two")
    assert ran_and_failed(pytester) == ({"test_b", "test_not_loaded"}, {"test_not_loaded"})
