"""The background steps of ``.ci/run`` (``.ci/steps.sh``): when one step fails and the
script exits, the other steps stop with everything they started. A real bash runs a
script sourcing the real file; the processes are looked up in ``/proc``."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

STEPS = Path(__file__).resolve().parents[1] / ".ci" / "steps.sh"

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/cmdline").exists(), reason="looks processes up in /proc"
)


def _running_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry.name))
    return found


def test_a_failed_step_stops_what_the_other_steps_started(tmp_path: Path) -> None:
    marker = f"reks-ci-step-{uuid.uuid4().hex}"
    script = tmp_path / "run.sh"
    script.write_text(
        f"""set -euo pipefail
LOGS={tmp_path / "logs"}
source {STEPS}
long_step() {{ "{sys.executable}" -c "import time; time.sleep(120)" {marker}; }}
failing_step() {{ sleep 0.5; exit 3; }}
start long long_step
start failing failing_step
failing_pid=$!
finish failing "$failing_pid" || exit 1
"""
    )
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert "failing failed (exit 3)" in done.stderr
    deadline = time.monotonic() + 5
    while _running_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _running_with(marker)
    for pid in left:
        subprocess.run(["kill", str(pid)], check=False)
    assert left == [], "the long step's child outlived the script"
