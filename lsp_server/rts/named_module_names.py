"""Module-level names with a meaning by name: those Python, pytest or unittest look up by
name (their statements stay in a module's residue), and the module dunders only code
spelling them reads (their bindings are plain bindings)."""

from __future__ import annotations

import sys

# Module-level names that Python, pytest or unittest look up by name, never by a
# reference in code: their statements stay in the residue.
# A module ``__getattr__`` is a binding: the tests whose lookups fell through to it ran it
# (a new one selects every importer: ``select.tests_seeing_new_getattr``).
LOOKED_UP = frozenset(
    [
        "__dir__",
        "__path__",
        "setUpModule",
        "tearDownModule",
        "setup_module",
        "teardown_module",
        "setup_function",
        "teardown_function",
        "load_tests",
        "pytestmark",
        "pytest_plugins",
        "collect_ignore",
        "collect_ignore_glob",
    ]
)


# Module dunders only code reading them by name sees (Python gives ``__name__``,
# ``__path__``, ``__spec__``... a meaning of their own: those stay in the residue).
# ``__all__`` is read by name too, by code spelling it; what ``from m import *`` takes
# by it is seen by the readers of the names listed (``rts.star_listings``).
INERT_DUNDERS = frozenset(
    [
        "__all__",
        "__version__",
        "__version_info__",
        "__author__",
        "__email__",
        "__license__",
        "__copyright__",
        "__credits__",
        "__maintainer__",
        "__status__",
        "__date__",
        # The metadata a package's ``__init__`` or ``__about__`` states (requests',
        # diskcache's, attrs'): a release bumps ``__build__`` with ``__version__``.
        "__title__",
        "__description__",
        "__summary__",
        "__url__",
        "__uri__",
        "__build__",
        "__author_email__",
        "__maintainer_email__",
        "__release__",
    ]
    # PEP 810: from 3.15 on it makes the imports it names lazy (when and whether they
    # run); before, nothing reads it but code spelling it.
    + (["__lazy_modules__"] if sys.version_info < (3, 15) else [])
)
