"""The interpreter the project's tests run in: the same for every feature."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def project_python(root: Path, explicit: str | None = None) -> str:
    """``explicit`` (``--python``, a setting), the active virtualenv, a ``.venv``/``venv``
    in the root, or this interpreter."""
    if explicit:
        return explicit
    candidates = []
    if os.environ.get("VIRTUAL_ENV"):
        candidates.append(Path(os.environ["VIRTUAL_ENV"]))
    candidates += [Path(root) / ".venv", Path(root) / "venv"]
    for env in candidates:
        for name in ("bin/python", "Scripts/python.exe"):
            if (env / name).exists():
                return str(env / name)
    return sys.executable


def is_this_interpreter(python: str) -> bool:
    """Is ``python`` the running interpreter's environment? Compared by the folder of the
    executable, not by the binary: every virtualenv links to its base interpreter's."""
    here = os.path.dirname(os.path.abspath(sys.executable))
    return os.path.dirname(os.path.abspath(python)) == here


def interpreter_problem(python: str, root: Path) -> str | None:
    """Why ``python`` cannot run reks' side of the work (its pytest plugin, the extreme
    workers) in the project, or None when it can. This interpreter always can."""
    if is_this_interpreter(python):
        return None
    try:
        probe = subprocess.run(
            [python, "-c", "import lsp_server.rts.pytest_plugin"],
            capture_output=True,
            cwd=root,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the project interpreter {python} does not run: {exc}"
    if probe.returncode != 0:
        return (
            f"the project interpreter {python} cannot load reks; install reks there"
            " (pip install -e <reks>) or choose another interpreter"
        )
    return None
