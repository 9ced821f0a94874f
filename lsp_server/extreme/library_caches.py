"""Caches of test libraries that every transformation's child would fill the same way,
filled once in the worker before it forks them.

freezegun's ``freeze_time`` patches, at each start, every loaded module's references to
the clock, and keeps the attributes it read of each module. A child forked from a worker
that never froze time found that cache empty and read every attribute of every module (a
worker holds pytest's, reks's and the project's: ~450) in each test that freezes time: on
itsdangerous 13% of the analysis's CPU time (load 23-25, interleaved). Filled in the
worker, each child finds what a plain pytest run finds after its first such test.

The import system imports ``importlib.readers`` at the first read of a package's resources
(``importlib.resources.files``, a loader's ``get_resource_reader``): every child whose tests
read one (humanize's locale path) imported it anew, so a kept child (``kept_child``) found
a module more than the fresh state and was retired after each such run. Imported once in
the worker where ``importlib.resources`` is loaded, each child finds what a plain pytest
run finds after its first such read; the module holds the readers' classes only.
"""

from __future__ import annotations

import importlib
import sys
from contextlib import suppress

RESOURCE_READERS = "importlib.readers"
"""The module the import system imports at the first read of a package's resources."""


def fill_library_caches() -> None:
    """Fill the caches above of the libraries the worker's session imported."""
    if "importlib.resources" in sys.modules and RESOURCE_READERS not in sys.modules:
        with suppress(ImportError):
            importlib.import_module(RESOURCE_READERS)
    freezegun = sys.modules.get("freezegun.api")
    remember = getattr(freezegun, "_get_cached_module_attributes", None)
    if remember is None:
        return
    for module in list(sys.modules.values()):
        with suppress(Exception):  # what freezegun skips (no name, a lazy module's errors)
            remember(module)
