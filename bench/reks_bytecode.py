"""reks's modules compiled to bytecode before a benchmark times anything.

The benchmarks run with ``PYTHONDONTWRITEBYTECODE`` (no bytecode in a project's checkout,
where a stale file with the same mtime and size would run old code), which is also set on
the team's machines. An editable reks in a fresh clone has no bytecode yet, so every
process would compile its modules from source (0.4-0.5 s CPU at load 15), where pip
compiles an installed package once, as a user's first session does for an editable one;
the peers (testmon, mutmut, rope), installed by pip, start from bytecode.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def compile_reks(python: Path | None = None) -> None:
    """Write the bytecode of the reks that ``python`` (default: this interpreter) imports."""
    find = "import lsp_server, os; print(os.path.dirname(lsp_server.__file__))"
    interpreter = str(python or sys.executable)
    package = subprocess.run(
        [interpreter, "-c", find], capture_output=True, text=True, check=True, cwd="/"
    ).stdout.strip()
    subprocess.run([interpreter, "-m", "compileall", "-q", package], check=True)
    print(f"reks compiled to bytecode ({package}), as an installed package is", flush=True)
