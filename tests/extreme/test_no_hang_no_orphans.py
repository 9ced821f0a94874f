"""``reks extreme`` ends whatever the tests do: a test that hangs on the original code is
stopped, reported and left out; processes the tests start do not outlive the analysis."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.model import Verdict

from .conftest import INC_MODULE, REKS


def test_a_test_hanging_on_the_original_code_is_reported_and_excluded(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "m.py": INC_MODULE,
            "test_m.py": """
                import time
                from m import inc

                def test_inc():
                    assert inc(1) == 2

                def test_hangs():
                    inc(0)
                    time.sleep(10**6)
            """,
        }
    )
    started = time.monotonic()
    done = subprocess.run(
        [*REKS, "extreme", "--json", "--jobs", "1", "--test-timeout", "2"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert time.monotonic() - started < 90
    assert done.returncode == 0, done.stderr
    assert "test_m.py::test_hangs" in done.stderr and "timeout" in done.stderr
    rows = json.loads(done.stdout)
    assert rows and all(r["verdict"] == "detected" for r in rows), rows
    for row in rows:
        assert "test_m.py::test_hangs" not in row["tests"]


def _processes_with(marker: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path("/proc", pid, "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(f"{pid}: {cmdline.decode(errors='replace')}")
    return found


def test_children_the_tests_start_do_not_outlive_the_analysis(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    marker = f"reks-orphan-{uuid.uuid4().hex}"
    root = make_project(
        {
            "spawn.py": """
                def should_spawn():
                    answer = False
                    return answer
            """,
            "test_spawn.py": f"""
                import subprocess, sys
                from spawn import should_spawn

                def test_spawn():
                    if should_spawn():
                        # Left running: when the test process ends it is an orphan.
                        subprocess.Popen(
                            [sys.executable, "-c", "import time; time.sleep(60)", "{marker}"]
                        )
                        leave = "import os, time; os.setpgid(0, 0); time.sleep(60)"
                        subprocess.Popen([sys.executable, "-c", leave, "{marker}"])
            """,
        }
    )
    analysis = analyse(root, Options(jobs=1))
    verdicts = {r.transformation.body: r.verdict for r in analysis.results}
    assert verdicts["return True"] is Verdict.UNDETECTED  # the children were started
    deadline = time.monotonic() + 5
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_with(marker) == []
