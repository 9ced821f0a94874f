"""Listings of what the whole session made: every object (``gc.get_objects``), the
referrers of one (``gc.get_referrers``), its reference count, the loaded modules (a loop
over ``sys.modules``), the running threads (``threading.enumerate``). Like
``Base.__subclasses__()`` (``test_subclass_listings.py``) each holds what modules only
another test's file imports made, and what a new test file makes: the test listing them
depends on no unit of those (``rts.session_listings``)."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

LIB = """
class Marker:
    def __init__(self, name):
        self.name = name


TOKEN = object()
SPARE = object()


def helper():
    return 1
"""

LISTINGS = {
    "gc_objects": """
        import gc

        import lib


        def test_listing():
            found = [o.name for o in gc.get_objects() if type(o) is lib.Marker]
            assert sorted(found) == ["b"]
        """,
    "gc_referrers": """
        import gc

        import lib


        def test_listing():
            held = [r for r in gc.get_referrers(lib.TOKEN) if type(r) is tuple]
            assert len(held) == 1
        """,
    "refcount": """
        import sys

        import lib


        def test_listing():
            assert sys.getrefcount(lib.TOKEN) - sys.getrefcount(lib.SPARE) == 1
        """,
    "sys_modules": """
        import os
        import sys


        def test_listing():
            here = os.path.dirname(__file__)
            weights = [
                vars(m).get("WEIGHT", 0)
                for m in list(sys.modules.values())
                if (getattr(m, "__file__", None) or "").startswith(here)
            ]
            assert sum(weights) == 2
        """,
    "threads": """
        import threading

        import lib


        def test_listing():
            mine = [t.name for t in threading.enumerate() if getattr(t, "lib", None) is lib]
            assert mine == ["b"]
        """,
}

OTHER = {
    "gc_objects": ("import lib\n\nKEPT = [lib.Marker('b')]\n", "'b'", "'c'"),
    "gc_referrers": ("import lib\n\nKEPT = (lib.TOKEN,)\n", "TOKEN,)", "TOKEN, (lib.TOKEN,))"),
    "refcount": ("import lib\n\nKEPT = (lib.TOKEN,)\n", "TOKEN,)", "TOKEN, lib.TOKEN)"),
    "sys_modules": ("WEIGHT = 2\n", "2", "3"),
    "threads": (
        "import threading\n\nimport lib\n\n"
        "STOP = threading.Event()\n"
        "WORKER = threading.Thread(target=STOP.wait, args=(60,), name='b', daemon=True)\n"
        "WORKER.lib = lib\nWORKER.start()\n",
        "name='b'",
        "name='c'",
    ),
}


def _recorded(pytester: pytest.Pytester, shape: str) -> pytest.Pytester:
    write(pytester, "lib.py", LIB)
    write(pytester, "test_lib.py", LISTINGS[shape])
    write(pytester, "other.py", OTHER[shape][0])
    write(pytester, "test_other.py", "import other\n\n\ndef test_other():\n    assert other\n")
    assert ran_and_failed(pytester) == ({"test_listing", "test_other"}, set())
    return pytester


@pytest.mark.parametrize("shape", sorted(LISTINGS))
def test_a_change_in_a_module_only_another_test_imports(
    pytester: pytest.Pytester, shape: str
) -> None:
    """``other.py`` is imported by ``test_other.py`` alone; the listing test sees what it
    made all the same, and fails once it changes."""
    project = _recorded(pytester, shape)
    _, old, new = OTHER[shape]
    edit(project, "other.py", old, new)
    ran, failed = ran_and_failed(project)
    assert "test_listing" in ran
    assert "test_listing" in failed  # what it lists changed
