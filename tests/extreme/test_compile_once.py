"""An analysis compiles each project module once, in the worker that imports it: reks's own
process writes no bytecode. A thread of reks's process used to compile the project into
the workers' cache while the first worker started; by CPU that was the same work once
more (on more-itertools about 0.3 s of a 3.4 s analysis), since the worker, collecting at
the same time, compiled what it reached first itself."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from tests.extreme.conftest import INC_MODULE
from tests.support.reks import run_pytest

# Counts the bytecode files this process (not a forked worker) opens for writing.
_ANALYSE = """
import os, sys
from pathlib import Path

main = os.getpid()
written = []

def hook(event, args):
    if event == "open" and os.getpid() == main and ".pyc" in str(args[0]):
        flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        if "w" in str(args[1] or "") or flags & (os.O_WRONLY | os.O_RDWR):
            written.append(str(args[0]))

sys.addaudithook(hook)
from lsp_server.extreme.analysis import Options, analyse

root = Path(sys.argv[1])
result = analyse(root, Options(paths=[root / "pkg" / "calc.py"], jobs=1, incremental=False))
print(sorted({r.verdict.value for r in result.results}))
print(len(written))
"""


def test_reks_own_process_writes_no_bytecode_of_the_project(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    root = make_project(
        {
            "pkg/__init__.py": "",
            "pkg/calc.py": INC_MODULE,
            "tests/test_calc.py": """
                from pkg.calc import inc

                def test_inc():
                    assert inc(1) == 2
            """,
        }
    )
    recorded = run_pytest(root, "--reks", "-p", "no:cacheprovider")
    assert recorded.returncode == 0, recorded.stdout
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_ANALYSE), str(root)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    verdicts, written = done.stdout.split("\n")[:2]
    assert verdicts == "['detected']"  # the worker imported the project and ran the test
    assert written == "0"
