"""``inspect.getmembers(obj)``: a lookup of every attribute ``obj`` has, recorded at run time.

``rts.lookups`` counts ``getmembers`` as a lookup by string of any name, so a test that ran
it depends on every binding of every module it imports. jmespath's function registry runs
it at import (a metaclass collects the ``_func_`` methods of its class), so every test
depended on every binding, and a new ``__version__`` selected the whole suite.

What ``getmembers`` lists is ``dir(obj)`` and the values found under those names. For a
class (or an instance, whose ``__dict__`` holds only what code that ran stored there: a
dependency already) those are class attributes, its bases' included: the same reach as
``getattr(self, name)`` with any name (``lookups.ATTRIBUTE_LOOKUP``), whose tests depend on
every class member of their modules and are selected by a new one. Never a module's
global. A module's members are its globals: any name (``reads.EVERY_NAME``), as before.

Only 3.12+ tells which object a call is handed (the ``sys.monitoring`` CALL event's first
argument); on older Pythons a code object spelling ``getmembers`` stays conservative.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from types import ModuleType

from lsp_server.rts.identity import identity
from lsp_server.rts.lookups import ATTRIBUTE_LOOKUP
from lsp_server.rts.reads import EVERY_NAME
from lsp_server.rts.site_values import Source

MEMBER_FUNCTIONS: list[Callable[..., object]] = (
    [inspect.getmembers, vars(inspect)["getmembers_static"]] if sys.version_info >= (3, 12) else []
)
"""The member-listing functions whose calls are recorded (none before 3.12)."""
IDS = frozenset(identity(function) for function in MEMBER_FUNCTIONS)
MEMBER_NAMES = frozenset(function.__name__ for function in MEMBER_FUNCTIONS)
MEMBERS_CALL: Source = ("members", None)
"""The sources ``rts.runtime_lookups`` keeps for a call of one of them: what it reads is told by
the object it is handed, not by where its arguments come from."""


def members_read(obj: object) -> str:
    """What ``getmembers(obj)`` reads: ``ATTRIBUTE_LOOKUP`` (any class attribute) for a
    class or an instance, ``EVERY_NAME`` for a module or an object not handed over
    positionally (``sys.monitoring.MISSING``)."""
    missing = getattr(getattr(sys, "monitoring", None), "MISSING", None)
    if obj is missing or isinstance(obj, ModuleType):
        return EVERY_NAME
    return ATTRIBUTE_LOOKUP
