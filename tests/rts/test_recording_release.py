"""Once every test is recorded, the session keeps none of the recording's per-test data:
pytest ends each session with five full garbage collections (to report unraisable
exceptions), and every answer and cached set still alive is visited by each of them.
Checked on a real pytest session in a subprocess (nothing else alive in it)."""

from __future__ import annotations

import json

import pytest

from .helpers import write

pytest_plugins = ["pytester"]

# From the project's own conftest after the session (its last hook): the tuples of units
# alive (an answer of ``UnitAttribution.units_of_test`` is one).
_COUNTER = """
import gc
import json

import pytest


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    from lsp_server.rts.file_units import Unit

    gc.collect()
    objects = gc.get_objects()
    answers = sum(1 for o in objects if type(o) is tuple and o and type(o[0]) is Unit)
    (config.rootpath / "alive.json").write_text(json.dumps(answers))
"""


def _alive(pytester: pytest.Pytester, combinations: int) -> int:
    write(
        pytester,
        "test_combinations.py",
        f"""
        import itertools

        import pytest

        import lib

        FUNCTIONS = [lib.f0, lib.f1, lib.f2, lib.f3, lib.f4, lib.f5, lib.f6, lib.f7]
        CASES = list(itertools.combinations(FUNCTIONS, 3))[:{combinations}]


        @pytest.mark.parametrize("functions", CASES)
        def test_case(functions):
            for function in functions:
                assert function() >= 0
        """,
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "--reks-all")
    result.assert_outcomes(passed=combinations)
    return int(json.loads((pytester.path / "alive.json").read_text()))


def test_recorded_answers_are_not_kept_to_the_end_of_the_session(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "conftest.py", _COUNTER)
    write(pytester, "lib.py", "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(8)))
    # Each case runs other code: an answer of its own while the session records.
    assert _alive(pytester, 56) == _alive(pytester, 8), "each test's answer is still alive"
