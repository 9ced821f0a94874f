"""A private bytecode cache for the pytest workers.

Without bytecode (``PYTHONDONTWRITEBYTECODE``, which workers used to get, and which some
machines set for everything) each worker compiles the project again and pytest rewrites
every test module's asserts at each start: most of toolz's collection time. The workers
write their bytecode under ``.reks/pycache`` instead (``sys.pycache_prefix``, which
pytest's assertion rewriting follows too): never next to the user's sources. The prefix is
set in the worker once pytest and reks are imported (``use_private_cache``), not through
``PYTHONPYCACHEPREFIX``: that would compile the standard library and every installed
package once more into the cache, ignoring the bytecode they were installed with.

A ``.pyc`` is checked against its source's modification time in whole seconds and its size,
so a source edited within the second its bytecode was written, to the same size, would
look unchanged. Such bytecode is dropped before workers start.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path

from lsp_server.rts.store import STORE_DIR

PREFIX_VARIABLE = "REKS_WORKER_PYCACHE"
"""The worker's private bytecode folder, from the pool to the worker."""
CACHE_DIR = "pycache"
"""The workers' bytecode cache, in the store's folder."""
UNSURE_SECONDS = 2.0
"""Bytecode written this close to its source's last modification may be stale."""


def worker_environment(root: Path, base: Mapping[str, str]) -> dict[str, str]:
    """The environment of workers over the project at ``root``: bytecode in the private
    cache, unless the user chose a cache folder of their own (then none, as before)."""
    env = dict(base)
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")  # what the tests start writes none
    if env.get("PYTHONPYCACHEPREFIX"):
        return env
    prefix = root / STORE_DIR / CACHE_DIR
    drop_unsure_bytecode(prefix)
    env[PREFIX_VARIABLE] = str(prefix)
    return env


def use_private_cache() -> None:
    """In the worker: bytecode of what it imports from now on goes to the private cache
    the pool named (if it named one)."""
    prefix = os.environ.pop(PREFIX_VARIABLE, "")
    if prefix:
        sys.pycache_prefix = prefix
        sys.dont_write_bytecode = False


def drop_unsure_bytecode(prefix: Path) -> int:
    """Remove the cached bytecode whose source changed within ``UNSURE_SECONDS`` of it
    being written (or is gone); how many files were removed."""
    removed = 0
    for folder, _, names in os.walk(prefix):
        source_dir = os.path.join("/", os.path.relpath(folder, prefix))
        for name in names:
            if not name.endswith(".pyc"):
                continue
            cached = os.path.join(folder, name)
            source = os.path.join(source_dir, name.split(".", 1)[0] + ".py")
            try:
                written = os.stat(cached).st_mtime
                edited = os.stat(source).st_mtime
            except FileNotFoundError:
                edited = None
            except OSError:
                continue
            if edited is None or edited > written - UNSURE_SECONDS:
                with suppress(OSError):
                    os.unlink(cached)
                    removed += 1
    return removed
