"""The README's main-job command, run for real on the bundled example."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RUN_CLI = "import sys; from lsp_server.cli import main; sys.exit(main(sys.argv[1:]))"


def test_demo_runs_the_main_job(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    done = subprocess.run(
        [sys.executable, "-c", RUN_CLI, "demo", "--dir", str(target)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout + done.stderr
    assert "3 passed" in out
    assert "3 tests need not run" in out
    assert "reks: 0 affected, 3 unaffected" in out
    assert "def _bump_version(self):" in (target / "versioned_set.py").read_text()
    assert "weak-oracle" in out and "assert s.version == 1" in out
    assert (target / ".reks").is_dir()
