"""A transformation's deadlines leave room for the fixture set-up its run may pay (a module
fixture set up by a test outside the covering set), not for the longest covering test; and
a run whose tests also overrun their deadlines on the original code is no detection."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme import requests
from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.transform_run import INCONCLUSIVE

from .conftest import INC_MODULE, verdict_rows


@pytest.mark.slow  # ~4-9 s: a worker starts, collects, observes, runs 4 transformations
def test_set_up_paid_elsewhere_and_overruns_of_the_original_code_are_no_detection(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "m.py": INC_MODULE,
            "n.py": "def dec(box):\n    x = box.pop()\n    box.append(x - 1)\n",  # one body: pass
            "test_0.py": "def test_first():\n    assert True\n",
            # inc: a module fixture, paid by test_a on the original run, falls to test_b.
            "test_mod.py": """
                import time
                import pytest
                from m import inc

                @pytest.fixture(scope="module", autouse=True)
                def heavy():
                    time.sleep(0.8)
                    yield

                def test_a():
                    assert True

                def test_b():
                    inc(1)  # no assertion: every transformation of inc goes undetected
            """,
            # neg: its test hangs once (its second run, the first transformed one), by chance.
            "o.py": "def neg(box):\n    box.append(-box.pop())\n",
            "test_once.py": """
                import os
                import time
                from o import neg

                RUNS = os.path.join(os.path.dirname(__file__), "runs")

                def test_n():
                    neg([1])
                    with open(RUNS, "a") as runs:
                        runs.write(".")
                    if os.path.getsize(RUNS) == 2:
                        time.sleep(30)
            """,
            # dec: its test overruns any deadline from its second run on, whatever dec does.
            "test_later.py": """
                import os
                import time
                from n import dec

                FLAG = os.path.join(os.path.dirname(__file__), "ran-once")

                def test_c():
                    dec([1])
                    if os.path.exists(FLAG):
                        time.sleep(30)
                    open(FLAG, "w").close()
            """,
        }
    )
    analysis = analyse(root, Options(jobs=1, incremental=False, timeout_base=0.5))
    assert verdict_rows(analysis) == [
        ("inc", "return 0", "undetected"),
        ("inc", "return 1", "undetected"),
        ("dec", "pass", "error"),
        ("neg", "pass", "undetected"),
    ]
    assert analysis.results[2].reason.startswith(INCONCLUSIVE)


def test_the_margin_is_the_set_up_a_run_may_pay_not_the_longest_test() -> None:
    tests = ["t.py::test_fast", "t.py::test_slow"]
    durations = {"t.py::test_fast": 0.01, "t.py::test_slow": 90.0}
    setups = {
        "t.py::test_slow": {"module": 0.5},
        "u.py::test_other": {"session": 2.0, "module": 7.0},
        "t.py::C::test_m": {"class": 3.0},
    }
    # The session fixture once, t.py's module fixture once; neither u.py's module fixture
    # nor a class the tests are not in.
    assert requests.setup_margin(tests, requests.slowest_setups(setups)) == 2.5
    first = requests.deadlines(tests, durations, 2.5, 1.0, 3.0, 600.0)[0]
    assert first == 1.0 + 3.0 * (2.5 + 0.01)
