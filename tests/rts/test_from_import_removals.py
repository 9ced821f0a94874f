"""``from p import a`` at a module's top level fails the module's import once ``p`` no
longer binds ``a``: every test importing the module sees that, whether it reads ``a`` or
not. Such a test records that it needs the name in ``p`` (a ``NAMES`` unit ``a@p.py``),
and a binding of it removed from ``p`` selects it; a changed value does not (it cannot see
it), on real pytest sessions."""

from __future__ import annotations

import ast

import pytest

from lsp_server.rts.bound_names import listed_names

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

ORIGIN = """
a = 1
b = 2


def c():
    return 3


def other():
    return 4
"""

IMPORTER_TEST = """
def test_x():
    from pkg import m

    assert m.X == 1
"""

ORIGIN_TEST = """
def test_other():
    from pkg import p

    assert p.other() == 4
"""


@pytest.fixture(params=["absolute", "relative"])
def project(request: pytest.FixtureRequest, pytester: pytest.Pytester) -> pytest.Pytester:
    if request.param == "absolute":
        origin = "from pkg.p import a, c as renamed"
    else:
        origin = "from .p import a, c as renamed"
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/p.py", ORIGIN)
    write(pytester, "pkg/m.py", f"{origin}\n\nX = 1\n")
    write(pytester, "test_m.py", IMPORTER_TEST)
    write(pytester, "test_p.py", ORIGIN_TEST)
    assert run(pytester) == {"test_x", "test_other"}
    return pytester


@pytest.mark.parametrize("removed", ["a = 1", "def c():\n    return 3"])
def test_a_name_removed_from_the_origin_selects_every_importer(
    project: pytest.Pytester, removed: str
) -> None:
    edit(project, "pkg/p.py", removed, "")
    assert run(project) == {"test_x"}  # it fails: ImportError


def test_a_name_no_importer_takes_selects_nothing(project: pytest.Pytester) -> None:
    edit(project, "pkg/p.py", "b = 2", "")
    assert run(project) == set()


def test_a_changed_value_is_not_seen_by_who_only_imports_it(project: pytest.Pytester) -> None:
    edit(project, "pkg/p.py", "a = 1", "a = 5")
    assert run(project) == set()


def test_a_star_import_needs_what_the_origin_lists_in_all(pytester: pytest.Pytester) -> None:
    write(pytester, "p.py", '__all__ = ["a", "other"]\n' + ORIGIN)
    write(pytester, "m.py", "from p import *\n\nX = 1\n")
    write(pytester, "test_m.py", IMPORTER_TEST.replace("from pkg import m", "import m"))
    write(pytester, "test_p.py", ORIGIN_TEST.replace("from pkg import p", "import p"))
    assert run(pytester) == {"test_x", "test_other"}
    edit(pytester, "p.py", "b = 2", "b = 2\nnew = 5")
    assert run(pytester) == set()  # not in __all__, and nobody reads it
    edit(pytester, "p.py", "def c():\n    return 3", "")
    assert run(pytester) == set()  # not in __all__: the star import takes what it lists
    edit(pytester, "p.py", "a = 1", "")
    assert run(pytester) == {"test_x"}  # AttributeError: __all__ names it


@pytest.mark.parametrize(
    ("source", "listed"),
    [
        ("__all__ = ['a', 'b']\nx = 1", {"a", "b"}),
        ("x = 1", set()),
        ("__all__ = ('a',)\n__all__ += ['b']", None),
        ("__all__ = ['a']\n__all__.append('b')", None),
        ("__all__ = names()", None),
        ("__all__ = ['a', name]", None),
    ],
)
def test_the_names_all_lists(source: str, listed: set[str] | None) -> None:
    found = listed_names(ast.parse(source))
    assert found == (None if listed is None else frozenset(listed))
