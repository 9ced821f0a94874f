"""``obj.__dict__["name"]`` reads one name, as ``getattr(obj, "name")`` does: a function
spelling it keeps its other lookups by string recorded at run time (``rts.runtime_lookups``)
instead of reading every name. tinydb's ``Middleware.__getattr__`` is ``return
getattr(self.__dict__['storage'], name)``: every test going through a middleware depended
on every binding of its modules, and a release bumping ``__version__`` selected them
(ad63e2e670, 10644a0e07: 5 tests, testmon none)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "store.py",
        """
        VERSION = "1.0"


        class Storage:
            def read(self):
                return 1


        class Proxy:
            def __init__(self, storage):
                self.storage = storage

            def __getattr__(self, name):
                return getattr(self.__dict__["storage"], name)
        """,
    )
    write(
        pytester,
        "test_proxied.py",
        """
        import store


        def test_read():
            assert store.Proxy(store.Storage()).read() == 1


        def test_version():
            assert store.VERSION
        """,
    )
    assert run(pytester) == {"test_read", "test_version"}
    return pytester


def test_a_constant_nobody_looked_up_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "store.py", '"1.0"', '"1.1"')
    assert run(project) == {"test_version"}


def test_what_the_lookup_found_selects_the_test(project: pytest.Pytester) -> None:
    edit(project, "store.py", "return 1", "return 2")
    assert run(project) == {"test_read"}


def test_a_computed_key_still_reads_every_name(project: pytest.Pytester) -> None:
    edit(
        project,
        "store.py",
        'return getattr(self.__dict__["storage"], name)',
        'key = "storage"\n        return getattr(self.__dict__[key], name)',
    )
    run(project)
    edit(project, "store.py", '"1.0"', '"1.1"')
    assert run(project) == {"test_read", "test_version"}
