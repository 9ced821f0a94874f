"""``getattr(obj, name)`` where ``name`` only ever takes the strings of a literal tuple
(jinja's node metaclass at import: ``for attr in "fields", "attributes":``) reads those
names, as ``getattr(obj, "fields")`` does: the importers of its module do not depend on
every binding (a change to any unrun jinja function reran the whole suite). The object
looked in is computed (``bases[0] if bases else object``): the names are not recorded at
run time (``rts.runtime_lookups``). A name also bound otherwise is still a lookup by
string."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "registry.py",
        """
        __version__ = "1.0"


        class Defaults:
            size = 1
            color = "red"


        def collect(source):
            out = {}
            for attr in "size", "color":
                out[attr] = getattr(source or object, attr, None)
            return out


        def rebound(source, extra):
            for attr in ("size",):
                attr = extra
            return getattr(source or object, attr, None)


        TABLE = collect(Defaults)


        def lookup(name):
            return TABLE[name]
        """,
    )
    write(
        pytester,
        "test_registry.py",
        """
        import registry


        def test_lookup():
            assert registry.lookup("color") in ("red", "blue")


        def test_rebound():
            assert registry.rebound(registry, "__name__") == "registry"


        def test_version():
            assert registry.__version__.startswith("1.")
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_lookup", "test_rebound", "test_version"}
    return pytester


def test_a_version_bump_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "registry.py", '__version__ = "1.0"', '__version__ = "1.1"')
    assert run(project) == {"test_version", "test_rebound"}


def test_a_looked_up_attribute_selects(project: pytest.Pytester) -> None:
    edit(project, "registry.py", 'color = "red"', 'color = "blue"')
    assert "test_lookup" in run(project)
