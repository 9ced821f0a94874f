"""The interpreter the project's tests run in: the same for every feature."""

from __future__ import annotations

import os
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
