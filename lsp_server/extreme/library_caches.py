"""Caches of test libraries that every transformation's child would fill the same way,
filled once in the worker before it forks them.

freezegun's ``freeze_time`` patches, at each start, every loaded module's references to
the clock, and keeps the attributes it read of each module. A child forked from a worker
that never froze time found that cache empty and read every attribute of every module (a
worker holds pytest's, reks's and the project's: ~450) in each test that freezes time: on
itsdangerous 13% of the analysis's CPU time (load 23-25, interleaved). Filled in the
worker, each child finds what a plain pytest run finds after its first such test.
"""

from __future__ import annotations

import sys
from contextlib import suppress


def fill_library_caches() -> None:
    """Fill the caches above of the libraries the worker's session imported."""
    freezegun = sys.modules.get("freezegun.api")
    remember = getattr(freezegun, "_get_cached_module_attributes", None)
    if remember is None:
        return
    for module in list(sys.modules.values()):
        with suppress(Exception):  # what freezegun skips (no name, a lazy module's errors)
            remember(module)
