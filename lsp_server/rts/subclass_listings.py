"""Who sees a change of the session's classes through ``Base.__subclasses__()``.

A test whose code asks a class for its subclasses (it reads the name ``__subclasses__``,
``rts.lookups.DYNAMIC_NAMES``) depends on every unit of the modules it depends on. But the
listing holds every subclass made so far in the whole session, in modules the test never
imported: a module that only another test's file imports adds its classes all the same.
What classes a session made is global state, so any change anywhere (a class statement,
its bases, code that builds classes at run time) may change the listing: every changed
unit selects the tests that read the name. Those are few, and they pay for it alone."""

from __future__ import annotations

from collections.abc import Iterable

from lsp_server.rts.file_units import Unit
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import NAMES

SUBCLASS_LISTING = Unit(NAMES, "__subclasses__")
"""The unit of a test whose code read ``__subclasses__`` (``rts.reads``)."""


def tests_listing_subclasses(store: DependencyStore, changed: Iterable[Unit]) -> dict[str, Unit]:
    """Tests that listed subclasses, each with the first of the ``changed`` units (names a
    test read aside: a new binding changes no class)."""
    units = sorted(unit for unit in changed if unit.path != NAMES)
    if not units:
        return {}
    return dict.fromkeys(store.tests_depending_on(SUBCLASS_LISTING), units[0])
