"""``reks refactor ... --apply`` records the task and applies the REKS rules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.reks import dependencies, run_pytest, selected


def test_cli_rename_apply_updates_the_store(project: Path) -> None:
    before = dependencies(project)
    util = project / "pkg/util.py"
    line = util.read_text().splitlines().index("def _helper(x):") + 1
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from lsp_server.cli import main; sys.exit(main())",
            "refactor",
            "rename",
            f"{util}:{line}:5",
            "_plus_one",
            "--apply",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "def _plus_one(x):" in util.read_text()
    # test_counter and test_scaled_area ran ``_helper``; test_area imports shapes.py, whose
    # ``from pkg.util import _helper`` changes only the unit of the name it binds.
    assert "rename `_helper` -> `_plus_one`: 2 tests need not run" in done.stderr
    assert selected(project) == {}
    after = dependencies(project)
    counter = "tests/test_util.py::test_counter"
    # The renamed unit, and its new name among the names the test reads (Counter.bump
    # reads it as a global of util.py: recorded for that module).
    assert {str(u) for u in after[counter]} - {str(u) for u in before[counter]} == {
        "pkg/util.py::_plus_one",
        "pkg/util.py::_plus_one.<def>",
        "<names>::_plus_one@pkg/util.py",
    }
    result = run_pytest(project, "--reks")
    assert result.returncode == 0, result.stdout
    assert "reks: 0 selected; 7 unchanged not run: 7 in 3 files not collected" in result.stdout
