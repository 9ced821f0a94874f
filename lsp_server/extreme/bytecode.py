"""A private bytecode cache for the pytest workers.

Without bytecode (``PYTHONDONTWRITEBYTECODE``, which workers used to get, and which some
machines set for everything) each worker compiles the project again and pytest rewrites
every test module's asserts at each start: most of toolz's collection time. The workers
write their bytecode under ``.reks/pycache`` instead (``sys.pycache_prefix``, which
pytest's assertion rewriting follows too): never next to the user's sources. The prefix is
set in the worker once pytest and reks are imported (``use_private_cache``), not through
``PYTHONPYCACHEPREFIX``. The prefix holds for the project's code alone: the standard
library and installed packages (pytest's plugins and what they import) keep reading the
bytecode they were installed with (``installed_code_keeps_its_bytecode``); compiling them
again into each project's cache cost every first analysis about a second.

A ``.pyc`` is checked against its source's modification time in whole seconds and its size,
so a source edited within the second its bytecode was written, to the same size, would
look unchanged. Such bytecode is dropped before workers start.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Mapping
from contextlib import suppress
from importlib.abc import Loader
from importlib.machinery import (
    BYTECODE_SUFFIXES,
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    SourceFileLoader,
    SourcelessFileLoader,
)
from pathlib import Path
from types import CodeType

from lsp_server.project.files import STORE_DIR

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
    prefix = private_cache(root, env)
    if prefix is None:
        return env
    drop_unsure_bytecode(prefix)
    env[PREFIX_VARIABLE] = str(prefix)
    return env


def private_cache(root: Path, env: Mapping[str, str]) -> Path | None:
    """The workers' bytecode folder over the project at ``root`` in environment ``env``;
    None when the user chose a cache folder of their own."""
    return None if env.get("PYTHONPYCACHEPREFIX") else root / STORE_DIR / CACHE_DIR


def use_private_cache() -> None:
    """In the worker: bytecode of what it imports from now on goes to the private cache
    the pool named (if it named one)."""
    prefix = os.environ.pop(PREFIX_VARIABLE, "")
    if prefix:
        installed_code_keeps_its_bytecode(write=not sys.dont_write_bytecode)
        sys.pycache_prefix = prefix
        sys.dont_write_bytecode = False


def installed_code_keeps_its_bytecode(write: bool) -> None:
    """Modules of the standard library, of installed packages and of reks imported from now
    on read their bytecode where they were installed with it, whatever
    ``sys.pycache_prefix`` says (and write it there only when ``write``, as the user's
    setting was)."""
    roots = [*installed_folders(), *own_compiled_folder()]
    details = _InstalledSource.details(write)
    finder_for = FileFinder.path_hook(*details)

    def installed_finder(entry: str) -> FileFinder:
        folder = os.path.realpath(entry or os.getcwd())
        if not any(folder == root or folder.startswith(root + os.sep) for root in roots):
            raise ImportError("not installed code")  # the next hook finds it
        return finder_for(entry)  # type: ignore[return-value]

    sys.path_hooks.insert(0, installed_finder)
    sys.path_importer_cache.clear()  # the folders seen already get their finder again


def installed_folders() -> list[str]:
    """The standard library's and the site-packages folders of this interpreter and of the
    one its virtual environment was made from (real paths)."""
    bases = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    found = {
        p
        for paths in (sysconfig.get_paths(), sysconfig.get_paths(vars=bases))
        for p in [paths[k] for k in keys]
    }
    return sorted({os.path.realpath(p) for p in found})


def own_compiled_folder() -> list[str]:
    """reks's own package folder when its bytecode is kept beside it (an editable install
    outside site-packages, compiled where it lives): the modules the worker imports after
    it started were compiled again into each new project's cache (~20 of them)."""
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # lsp_server/
    init = os.path.join(package, "__pycache__", f"__init__.{sys.implementation.cache_tag}.pyc")
    return [package] if os.path.exists(init) else []


class _InstalledSource(SourceFileLoader):
    """A source loader that ignores ``sys.pycache_prefix`` (see the module docstring)."""

    write = False

    @classmethod
    def details(cls, write: bool) -> list[tuple[type[Loader], list[str]]]:
        loader = type("InstalledSource", (cls,), {"write": write})
        return [
            (ExtensionFileLoader, EXTENSION_SUFFIXES),
            (loader, SOURCE_SUFFIXES),
            (SourcelessFileLoader, BYTECODE_SUFFIXES),
        ]

    def get_code(self, fullname: str) -> CodeType | None:
        # Both are read while the bytecode is looked up and written, nowhere else.
        saved = sys.pycache_prefix, sys.dont_write_bytecode
        sys.pycache_prefix, sys.dont_write_bytecode = None, not self.write
        try:
            return super().get_code(fullname)
        finally:
            sys.pycache_prefix, sys.dont_write_bytecode = saved


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
