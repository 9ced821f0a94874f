"""What several front ends share."""

from __future__ import annotations

import sys
from pathlib import Path


def existing_root(root: str, command: str) -> Path | None:
    """The project root ``--root`` names, resolved; None (said on stderr) when it is not
    a directory."""
    path = Path(root).resolve()
    if not path.is_dir():
        print(f"reks {command}: no such directory: {path}", file=sys.stderr)
        return None
    return path
