"""``__import__(name, globals, locals, fromlist, level)`` called by the project, recorded as
it runs (``rts.runtime_lookups``): jinja's ``utils.import_string`` imports
``"pkg.ext.I18n"`` by ``getattr(__import__("pkg.ext", None, None, ["I18n"]), "I18n")``,
run at import by every module making an ``Environment(extensions=[...])``, and made each
importer depend on every binding of its modules.

The call imports ``name`` and its parent packages (the modules it reads, as
``import_module`` does), then looks up each name of ``fromlist`` in it (a read of that
name), importing the submodule so named when there is no such attribute (a module read
when one was imported). A relative import (``level`` other than 0), a ``fromlist`` that is
no list or tuple of strings, or an argument whose value the call site cannot tell reads
every name.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from types import FrameType

from lsp_server.rts.reads import EVERY_NAME
from lsp_server.rts.site_values import Source, value_at
from lsp_server.rts.stdlib_imports import STDLIB_MODULES

_FROMLIST, _LEVEL = 3, 4


def record_import(
    frame: FrameType,
    sources: tuple[Source | None, ...],
    names: set[str],
    modules: set[str],
    submodules: set[str],
) -> bool:
    """Record what an ``__import__`` call whose arguments come from ``sources`` in
    ``frame`` reads: the names (``names``), the modules by name (``modules``), and the
    submodules its ``fromlist`` may import (``submodules``: modules only if imported).
    False when it reads every name (recorded in ``names``): the call site need not call
    back again."""
    values = [None if source is None else value_at(frame, source) for source in sources]
    if any(source is None for source in sources) or len(values) > _LEVEL + 1:
        names.add(EVERY_NAME)
        return False
    name = values[0]
    level = values[_LEVEL] if len(values) > _LEVEL else 0
    taken = values[_FROMLIST] if len(values) > _FROMLIST else ()
    if taken is None:
        taken = ()
    if (
        not isinstance(name, str)
        or not name
        or name.startswith(".")
        or level != 0
        or not isinstance(taken, (list, tuple))
        or not all(isinstance(item, str) for item in taken)
    ):
        names.add(EVERY_NAME)
        return False
    name = str.__str__(name)
    parts = name.split(".")
    modules.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
    names.update(parts)
    for item in taken:
        item = str.__str__(item)
        names.add(item)
        submodules.add(f"{name}.{item}")
    return True


def module_files(
    imported: Iterable[str], found: Iterable[str], submodules: Iterable[str]
) -> tuple[set[str], bool]:
    """The files of the modules a code object imported by name (``imported``), found in
    ``sys.modules`` by a constant name (``found``: ``rts.named_reads.constant_module``) and
    of the ``submodules`` a fromlist may have imported; and whether one of the first two
    is not there now (it reads any name). A standard-library module found not there was
    never loaded: no project module bears its name, so it reads nothing."""
    files: set[str] = set()
    missing = False
    for name in (*imported, *found, *submodules):
        module = sys.modules.get(name)
        filename = getattr(module, "__file__", None)
        if isinstance(filename, str):  # else a builtin module: no project code
            files.add(filename)
    for name in imported:
        missing = missing or name not in sys.modules
    for name in found:
        missing = missing or (name not in sys.modules and name.split(".")[0] not in STDLIB_MODULES)
    return files, missing
