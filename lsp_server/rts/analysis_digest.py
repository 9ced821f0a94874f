"""The digest of reks's analysing code, and the store folder its kept analyses live in.

Apart from ``rts.analysis_cache`` (which imports the analysis itself on a miss) so that
what the analysis imports can key its own kept answers by it (``rts.kept_code_analyses``)
without an import cycle.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import xxhash

ANALYSIS_DIR = "analysis"
_ANALYSING_PACKAGES = ("rts", "project")


@functools.cache
def analysis_code_digest() -> str:
    """A digest of the code that analyses files, and of the Python running it."""
    digest = xxhash.xxh3_64(sys.version.encode())
    package = Path(__file__).resolve().parent.parent
    for name in _ANALYSING_PACKAGES:
        for module in sorted((package / name).rglob("*.py")):
            digest.update(module.relative_to(package).as_posix().encode())
            digest.update(module.read_bytes())
    return digest.hexdigest()
