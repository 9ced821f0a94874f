"""The fixed cost of replaying a factored test: what a factored test whose transcript holds
one call costs over its original, when E costs nothing.

A temporary project (E answers instantly) has one test; it is factored, and 20 copies of the
factored test and 20 of the original run in one pytest session (in this process, so that
the time of each test's setup, call and teardown is measured without the session's start).
The peer is the plain test in the same session: the difference of the medians is replay's
fixed cost per factored test (loading and checking the transcript, rebinding T's globals,
the teardown check).

    python bench/factoring_replay_cost.py [--copies 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from lsp_server.factoring.factor import factor_tests

FILES = {
    "app/__init__.py": "",
    "app/env.py": "def compute(x):\n    return {'double': 2 * x}\n",
    "app/logic.py": "from app import env\n\n\ndef doubled(x):\n"
    "    return env.compute(x)['double']\n",
    "tests/test_logic.py": "from app import logic\n\n\ndef test_it():\n"
    "    assert logic.doubled(2) == 4\n",
}


class _Timer:
    """Wall and CPU time of each test's whole protocol (setup, call, teardown)."""

    def __init__(self) -> None:
        self.times: dict[str, tuple[float, float]] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: Any, nextitem: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        yield
        self.times[item.nodeid] = (time.perf_counter() - wall, time.process_time() - cpu)


def make_project(root: Path, copies: int) -> None:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text), encoding="utf-8")
    [result] = factor_tests(root, ["tests/test_logic.py::test_it"], ["app.env"], keep_slower=True)
    if result.status != "factored" or not result.factored_test:
        raise SystemExit(f"not factored: {result.reason}")
    factored = root / result.factored_test.split("::")[0]
    for i in range(copies):
        shutil.copy(factored, root / "tests" / f"test_factored_copy{i}.py")
        shutil.copy(root / "tests/test_logic.py", root / "tests" / f"test_plain_copy{i}.py")
    factored.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reks-replay-cost-") as scratch:
        root = Path(scratch)
        make_project(root, args.copies)
        timer = _Timer()
        os.chdir(root)
        sys.path.insert(0, str(root))
        pytest.main(["-q", "-p", "no:cacheprovider", "-p", "lsp_server.factoring.plugin", "tests"],
                    plugins=[timer])  # fmt: skip
    medians = {}
    for kind in ("factored", "plain"):  # the first of each pays one-time imports: left out
        runs = [t for nodeid, t in timer.times.items() if f"test_{kind}_copy" in nodeid][1:]
        medians[kind] = [statistics.median(t[i] for t in runs) * 1e3 for i in (0, 1)]
        wall, cpu = medians[kind]
        print(f"{kind:9} test: median wall {wall:6.2f} ms, CPU {cpu:6.2f} ms ({len(runs)} tests)")
    extra = [f - p for f, p in zip(medians["factored"], medians["plain"], strict=True)]
    print(f"replay's fixed cost per factored test: wall {extra[0]:.2f} ms, CPU {extra[1]:.2f} ms")
    loadavg = Path("/proc/loadavg")
    if loadavg.exists():
        print(f"load: {loadavg.read_text(encoding='utf-8').strip()}")


if __name__ == "__main__":
    main()
