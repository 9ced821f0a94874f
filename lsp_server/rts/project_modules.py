"""The project's modules as they are loaded, each handed out once: what ``rts.cache_hits``
and ``rts.filled_containers`` look through for caches and containers, again whenever
``sys.modules`` has grown."""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Callable, Iterator
from types import ModuleType

from lsp_server.rts.identity import identity


class NewProjectModules:
    def __init__(self, is_project_file: Callable[[str], bool]) -> None:
        self._is_project_file = is_project_file
        self._modules_seen = 0
        self._scanned: set[int] = set()  # ids of the modules looked at
        self._kept: list[object] = []  # those modules, so that their ids stay theirs

    def take(self) -> list[ModuleType]:
        """The project's modules loaded since the last call (none when nothing was)."""
        if len(sys.modules) == self._modules_seen:
            return []
        modules = list(sys.modules.values())
        self._modules_seen = len(sys.modules)
        found: list[ModuleType] = []
        for module in modules:
            if identity(module) in self._scanned:
                continue
            self._scanned.add(identity(module))
            self._kept.append(module)
            path = getattr(module, "__file__", None)
            if isinstance(module, ModuleType) and path and self._is_project_file(path):
                found.append(module)
        return found


@contextlib.contextmanager
def hooks_unheard() -> Iterator[None]:
    """While the recorder looks through the values of modules (``isinstance`` on each, which
    reads ``__class__`` through a value's own ``__getattribute__``): the warnings such a
    hook issues are the recorder's doing, not the test's, and are ignored (itsdangerous
    1.1's ``_json.deprecated_json`` warns on any attribute: under ``filterwarnings =
    error`` pytest stopped with INTERNALERROR before the first test, and every later
    ``--reks`` run ran nothing). A warning ignored here is not registered: the test's own
    still show."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
