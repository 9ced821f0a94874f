"""``dir`` lists names of what it is given, read as it runs (``rts.namespace_listings``):
a class body's ``dir()`` lists that class's members and ``dir(builtins)`` no project
binding, so neither makes every test that imported them read every name of every module;
a project module's or class's listing still selects on a new name."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def _project(pytester: pytest.Pytester) -> None:
    write(pytester, "pkg/__init__.py", "__version__ = '1.0'\n")
    write(
        pytester,
        "pkg/checker.py",
        """
        import builtins

        builtin_names = dir(builtins)


        class Magic:
            names = dir()


        def is_magic(name):
            return name in Magic.names


        def is_builtin(name):
            return name in builtin_names
        """,
    )
    write(
        pytester,
        "pkg/members.py",
        """
        class Shape:
            sides = 3


        def listed():
            return [n for n in dir(Shape) if not n.startswith("_")]
        """,
    )
    write(
        pytester,
        "test_checker.py",
        """
        from pkg import checker, members


        def test_magic():
            assert checker.is_magic("__module__")


        def test_builtin():
            assert checker.is_builtin("len")


        def test_members():
            assert members.listed() == ["sides"]
        """,
    )


def test_a_class_body_listing_its_own_names_reads_no_module_binding(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    assert run(pytester, flag="--reks-all") == {"test_magic", "test_builtin", "test_members"}
    edit(pytester, "pkg/__init__.py", "'1.0'", "'1.1'")
    assert run(pytester) == set()


def test_a_listed_class_gaining_a_member_selects_its_listers(pytester: pytest.Pytester) -> None:
    _project(pytester)
    assert run(pytester, flag="--reks-all") == {"test_magic", "test_builtin", "test_members"}
    edit(pytester, "pkg/members.py", "    sides = 3\n", "    sides = 3\n    corners = 3\n")
    assert "test_members" in run(pytester)


def test_a_class_body_gaining_a_member_before_its_listing_selects_its_readers(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    assert run(pytester, flag="--reks-all") == {"test_magic", "test_builtin", "test_members"}
    edit(pytester, "pkg/checker.py", "class Magic:\n", "class Magic:\n    extra = 1\n")
    assert "test_magic" in run(pytester)


def test_a_listed_project_module_gaining_a_name_selects_its_listers(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/tools.py", "def first():\n    return 1\n")
    write(
        pytester,
        "pkg/listing.py",
        """
        from pkg import tools


        def public():
            return [n for n in dir(tools) if not n.startswith("_")]
        """,
    )
    write(
        pytester,
        "test_listing.py",
        """
        from pkg import listing


        def test_public():
            assert listing.public() == ["first"]
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_public"}
    edit(pytester, "pkg/tools.py", "return 1\n", "return 1\n\n\ndef second():\n    return 2\n")
    assert run(pytester) == {"test_public"}


def test_a_class_body_in_its_module_unit_listing_itself_reads_no_other_member(
    pytester: pytest.Pytester,
) -> None:
    # Magic's body calls dir(): the class is part of the module unit, which every importer
    # depends on, so its listing of its own names needs no read of other classes' members.
    write(
        pytester,
        "magic.py",
        """
        class Magic:
            names = dir()


        class Kind:
            def first(self):
                return 1


        def is_magic(name):
            return name in Magic.names
        """,
    )
    write(
        pytester,
        "test_magic_case.py",
        """
        import magic


        def test_magic():
            assert magic.is_magic("__module__")


        def test_kind():
            assert magic.Kind().first() == 1
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_magic", "test_kind"}
    edit(
        pytester,
        "magic.py",
        "    def first(self):",
        "    def second(self):\n        return 2\n\n    def first(self):",
    )
    assert run(pytester) == set()
    edit(pytester, "magic.py", "    names = dir()", "    extra = 1\n    names = dir()")
    assert run(pytester) == {"test_magic", "test_kind"}
