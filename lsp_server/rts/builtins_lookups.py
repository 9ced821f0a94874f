"""``getattr(builtins, name)`` and ``hasattr(builtins, name)``: lookups that read the
builtins module only.

A lookup by a computed name on a module reads any of its globals, so ``rts.runtime_lookups``
counts it as reading every name (``EVERY_NAME``) when it cannot tell the name: the test then
depends on every binding of every module it imports, and a new constant anywhere selects it.
typeguard's transformer asks ``hasattr(builtins, node.id)`` for each name it meets, and each
of its tests depended on every statement of the package.

What such a call finds is decided by the builtins module's namespace alone: no binding of a
project module changes it (``import builtins`` is the interpreter's module whatever files
the project has). Only a store into ``builtins`` does, and project code storing there is a
dependency as any code that ran (in the test, or at the import of a module it imports). So
on 3.12+, where the CALL event hands over the object looked in, a call on the builtins
module records no name. ``setattr``/``delattr`` are stores, not reads: unchanged; so is any
call on another object, and every call before 3.12 (the object is not told).
"""

from __future__ import annotations

import builtins

from lsp_server.rts.identity import identity

_READERS = frozenset({identity(getattr), identity(hasattr)})


def reads_builtins_only(function: object, looked_in: object) -> bool:
    """Whether calling ``function`` with ``looked_in`` first reads the builtins alone."""
    return looked_in is builtins and identity(function) in _READERS
