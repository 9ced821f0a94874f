"""The key of a code object (or a lookup function) in the recording's tables.

Code objects are kept by identity (``rts.tracing`` says why). ``id`` would do, but once
any audit hook is installed (``rts.audit_events`` installs one, for the files a test opens
and the code about to run) every ``id()`` in the process raises the ``builtins.id`` event:
a call of the hook in Python, a quarter of a million of them in the callbacks and the
attribution on marshmallow's tests. ``object.__hash__`` of any object is its address,
rotated (a one-to-one map): unique among live objects like ``id``, and it raises no event.
"""

from __future__ import annotations

from collections.abc import Callable

identity: Callable[[object], int] = object.__hash__
"""Like ``id``: equal for the same object only, while both are alive."""
