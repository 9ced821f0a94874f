"""``globals()[name]``: a lookup by a computed name among its own module's globals only.

``globals()`` is the namespace of the module the calling code was defined in, never
another's. A function whose only lookup by string is calling it (click's
``parser.__getattr__``: ``return globals()[f"_{name}"]`` for deprecated names, run at
import) was counted as looking up any name (``lookups.looks_up_by_string``: "*"), and every
test depended on every binding of every module it imports (click 7df2f823: a new
``_available_shells`` entry reran all 1,927 tests, testmon 63). Such code reads its own
module whole instead (``globals_calls.OWN_GLOBALS``): the name
``module_read(EVERY_NAME, path)`` that ``BindingReads`` records for a module read whole,
and the module among the test's modules read whole (``modules_read_whole``). What the
lookup returns is then read by the names its readers spell, as any value.

Only a call of the name ``globals`` with no argument counts; any other lookup by string in
the same function (``getattr``, ``vars``, ``__dict__``...) keeps it "*".
"""

from __future__ import annotations

from collections.abc import Set

from lsp_server.rts.globals_calls import OWN_GLOBALS
from lsp_server.rts.reads import EVERY_NAME
from lsp_server.rts.unit_names import module_read

__all__ = ["OWN_GLOBALS", "modules_read_whole", "own_globals_read"]

_KEYS: dict[str, str] = {}
"""``module_read(EVERY_NAME, path)`` -> path, for each module whose code read its globals so
(few: found with one set intersection per test)."""


def own_globals_read(path: str) -> str:
    """The name code of module ``path`` reads by looking names up among its globals."""
    key = module_read(EVERY_NAME, path)
    _KEYS[key] = path
    return key


def modules_read_whole(names: Set[str]) -> set[str]:
    """The modules whose globals some code that ``names`` were read by looked up."""
    return {_KEYS[key] for key in _KEYS.keys() & names} if _KEYS else set()
