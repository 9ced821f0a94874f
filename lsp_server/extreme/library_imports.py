"""The library modules a worker's session imported before it collected (what the conftest
files and the project import of the standard library and of installed packages), so that a
spare waiting before pytest starts (``warm``) imports them while it waits: its restart then
pays for pytest, the conftests, the project and the collection only.

pytest plugins' packages are left to pytest: it marks them for assertion rewriting as it
loads them, and warns about (and does not rewrite) a plugin module imported before.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable

PRELOAD_VARIABLE = "REKS_WORKER_PRELOAD"
"""The library modules a spare waiting before pytest imports, comma-separated."""
MOST_MODULES = 3000
"""Beyond this many the rest is left to the session (the variable stays small)."""
_OWN = {"__main__", "_pytest", "pytest", "pluggy", "lsp_server", "conftest"}


def session_libraries(root: str) -> list[str]:
    """The modules this process imported from outside ``root`` (real path), in the order
    they were imported, but pytest plugins' packages (see the module docstring)."""
    prefix = root + os.sep
    skipped = _OWN | _plugin_packages()
    names: list[str] = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str) or name.partition(".")[0] in skipped:
            continue  # built in, a namespace package, a plugin's
        if not os.path.realpath(file).startswith(prefix):
            names.append(name)
    return names[:MOST_MODULES]


def import_libraries(names: Iterable[str]) -> list[str]:
    """Import each of ``names`` not imported yet; the names imported. One that fails to
    import here is left to the session (which imported it in a way of its own)."""
    imported: list[str] = []
    for name in names:
        if not name or name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except Exception:  # any failure: the session imports it its own way
            continue
        imported.append(name)
    return imported


def _plugin_packages() -> set[str]:
    from importlib.metadata import entry_points

    return {ep.value.partition(":")[0].partition(".")[0] for ep in entry_points(group="pytest11")}
