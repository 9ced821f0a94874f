"""A check of one attribute, by a constant name, of an object's ``__dict__``
(``hasattr(obj.__dict__, "keys")``, an ``__instancecheck__`` telling object-like values
apart) reads that one name of the mapping, not every name: its tests depend on a binding
of that name (a ``__dict__`` of the project's making that gains it), not on a version
bump."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "shapes.py",
        """
        __version__ = "1.0"


        class _KeysMeta(type):
            def __instancecheck__(cls, obj):
                return hasattr(obj, "__dict__") and hasattr(obj.__dict__, "keys")


        class ObjectKeys(metaclass=_KeysMeta):
            pass


        class Table:
            pass


        class Record:
            @property
            def __dict__(self):
                return Table()


        class Plain:
            pass
        """,
    )
    write(
        pytester,
        "test_shapes_case.py",
        """
        import shapes


        def test_plain():
            assert isinstance(shapes.Plain(), shapes.ObjectKeys)


        def test_record():
            assert not isinstance(shapes.Record(), shapes.ObjectKeys)


        def test_version():
            assert shapes.__version__.startswith("1.")
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_plain", "test_record", "test_version"}
    return pytester


def test_a_version_bump_selects_only_its_reader(project: pytest.Pytester) -> None:
    edit(project, "shapes.py", '__version__ = "1.0"', '__version__ = "1.1"')
    assert run(project) == {"test_version"}


def test_the_name_checked_bound_where_the_dict_is_made_selects(project: pytest.Pytester) -> None:
    edit(project, "shapes.py", "class Table:\n    pass", "class Table:\n    keys = dict.keys")
    assert "test_record" in run(project)
