"""Library decorators that only keep the function they are handed.

A statement of the module unit calling what the module does not define hands what it reads
to library code, which may read their signatures, annotations, bodies and docstrings
untraced (``SeenBodies._handed_names``). ``property``, ``staticmethod`` and ``classmethod``
keep the function (and copy its docstring and name, seen only by code reading those
itself: ``lookups.DOC_READS``); ``abc.abstractmethod`` sets ``__isabstractmethod__`` on it.
None calls it or reads its code, signature or annotations. tenacity's ``BaseRetrying`` (in
the module unit: a call in a default value) decorates methods with ``@property`` and
``@abstractmethod``: every name its statement read counted as handed, and every importer saw
the annotations of ``retry_base``'s dunders.
"""

from __future__ import annotations

from lsp_server.rts.file_units import FileUnits

KEEPING_BUILTINS = frozenset(["property", "staticmethod", "classmethod"])
"""The builtin decorators that keep what they wrap (not rebound, see ``only_keeps``)."""
_IMPORTED = {"abstractmethod": "abc"}


def only_keeps(file_units: FileUnits, root: str) -> bool:
    """Whether ``root``, the first name of a call at the top of the module of
    ``file_units``, is one of those decorators: a builtin the module binds nowhere at its
    top or in a class body, or ``abstractmethod`` bound only by ``from abc import``."""
    units = file_units.bound.get(root, [])
    origin = file_units.import_origins.get(root)
    if root in KEEPING_BUILTINS:
        return origin is None and not units
    # Bound by the import alone (its unit is named by the name it binds).
    return root in _IMPORTED and origin == _IMPORTED[root] and units == [root]
