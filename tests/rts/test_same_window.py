"""Parametrized cases that run the same code share one computed answer for their
dependencies (``UnitAttribution.units_of_test``); a case that runs other code, or a
module imported by a later case, gets its own. Checked on a real pytest session."""

from __future__ import annotations

import pytest

from lsp_server.rts.file_units import Unit
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import CASE

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def test_cases_running_the_same_code_share_dependencies(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "lib.py",
        """
        def f(x):
            return x


        def h(x):
            return -x


        def late(x):
            import extra

            return extra.twice(x)
        """,
    )
    write(
        pytester,
        "extra.py",
        """
        import lib

        FACTOR = lib.f(2)


        def twice(x):
            return FACTOR * x
        """,
    )
    write(
        pytester,
        "test_cases.py",
        """
        import pytest

        import lib


        @pytest.mark.parametrize("x", [1, 2, 3, 4])
        def test_case(x):
            if x == 3:
                assert lib.h(x) == -3
            elif x == 4:
                assert lib.late(x) == 8
            else:
                assert lib.f(x) == x
        """,
    )
    assert len(run(pytester)) == 4
    with DependencyStore(pytester.path) as store:
        deps = {n: set(store.dependencies_of(f"test_cases.py::test_case[{n}]")) for n in "1234"}
    # Each case has its own case unit (``rts.parametrize_cases``); the rest is shared.
    cases = {n: {u for u in deps[n] if CASE in u.name} for n in "12"}
    assert len(cases["1"]) == len(cases["2"]) == 1 and cases["1"] != cases["2"]
    assert deps["1"] - cases["1"] == deps["2"] - cases["2"]
    assert Unit("lib.py", "h") in deps["3"] and Unit("lib.py", "h") not in deps["1"]
    assert Unit("extra.py", "twice") in deps["4"] and Unit("extra.py", "twice") not in deps["1"]
    edit(pytester, "lib.py", "return -x", "return 0 - x")
    assert run(pytester) == {"test_case[3]"}
    edit(pytester, "extra.py", "FACTOR * x", "x * FACTOR")
    assert run(pytester) == {"test_case[4]"}
