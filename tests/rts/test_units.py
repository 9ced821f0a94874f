"""Unit extraction and normalized checksums."""

from __future__ import annotations

import textwrap

import pytest

from lsp_server.rts.file_units import Unit
from lsp_server.rts.unit_names import (
    DEAD,
    LAYOUT,
    MODULE,
    PLACES,
    is_place,
    lines_name,
    places_name,
)
from lsp_server.rts.units import SourceError, source_units

BASE = textwrap.dedent(
    """
    import os

    LIMIT = 3


    class Box:
        size = 2

        def grow(self, n):
            return self.size + n

        @property
        def area(self):
            return self.size ** 2


    def helper(x):
        def inner(y):
            return y + 1
        return inner(x)
    """
)


def checksums(source: str) -> dict[str, str]:
    return source_units("m.py", source).checksums


def test_units_found() -> None:
    units = source_units("m.py", BASE)
    inner = Unit("m.py", "helper.<locals>.inner")
    functions = ("Box.grow", "Box.area", "helper", inner.name)
    assert set(units.checksums) == {
        *(MODULE, LAYOUT, *functions),  # bodies, headers, defaults and docstrings (empty ones too)
        *(f"{f}.<def>" for f in functions),
        *(f"{f}.<defaults>" for f in functions),
        *(f"{f}.<doc>" for f in functions),
        *(f"{f}.<lines>" for f in functions),  # its place: ``rts.layout_unit``
        *(f"{f}.<places>" for f in functions),  # less comments' text
        PLACES,
        # bindings: a constant, a class and its attribute, a standard-library import; a
        # plain class's docstring (empty: it has none)
        *("LIMIT", "Box", "Box.size", "os", "Box.<doc>"),
        "Box.<class>",  # bound by its class statement alone: ``rts.needed_attributes``
        "Box.<subclass>",  # what making a subclass sees of it: ``rts.subclassing``
    }
    assert units.unit_for_qualname("helper.<locals>.inner") == inner
    assert units.unit_for_qualname("helper.<locals>.inner.<locals>.<lambda>") == inner
    assert units.enclosing(inner) == (Unit("m.py", "helper"),)
    assert units.enclosing(Unit("m.py", "helper")) == ()
    assert units.unit_for_qualname("Box") == Unit("m.py", MODULE)
    assert units.unit_at_line(units.spans["Box.area"].def_line) == Unit("m.py", "Box.area")


def test_comments_and_layout_do_not_count() -> None:
    continued = "return self.size + \\\n                n  # grow"
    edited = BASE.replace("return self.size + n", continued)
    edited = edited.replace("LIMIT = 3", "LIMIT = 3  # max\n\n\n")
    # Only the layouts see them: the file's, and the places of ``grow`` (a line break in
    # it) and of the functions below the lines added (what tests reading lines depend on).
    # Lines moved: their twins without comments' text changed too.
    below = {"Box.grow", "Box.area", "helper", "helper.<locals>.inner"}
    places = {f(name) for name in below for f in (lines_name, places_name)}
    assert changed_units(BASE, edited) == {LAYOUT, PLACES, *places}
    moved = BASE.replace("return y + 1", "return y + \\\n                1")
    moved_names = ("helper", "helper.<locals>.inner")
    inner = {f(name) for name in moved_names for f in (lines_name, places_name)}
    assert changed_units(BASE, moved) == {LAYOUT, PLACES, *inner}


def changed_units(before: str, after: str) -> set[str]:
    """The units whose checksums differ; the layouts (``rts.layout_unit``) only when
    nothing else changed (an edit adding a token changes them too)."""
    old, new = checksums(before), checksums(after)
    changed = {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)}
    units = {k for k in changed if not is_place(k)}
    return units or changed


def test_body_edit_changes_only_that_function() -> None:
    assert changed_units(BASE, BASE.replace("y + 1", "y + 2")) == {"helper.<locals>.inner"}
    assert changed_units(BASE, BASE.replace("return inner(x)", "return inner(-x)")) == {"helper"}
    # The nested header runs when the outer body does: it is in the outer body too. A
    # default's value is the body's and the defaults unit's (its presence the header's).
    assert changed_units(BASE, BASE.replace("def inner(y)", "def inner(y=2)")) == {
        "helper",
        "helper.<locals>.inner.<def>",
        "helper.<locals>.inner.<defaults>",
        "helper.<locals>.inner",
    }
    assert changed_units(
        BASE.replace("def inner(y)", "def inner(y=2)"),
        BASE.replace("def inner(y)", "def inner(y=3)"),
    ) == {"helper", "helper.<locals>.inner", "helper.<locals>.inner.<defaults>"}


def test_functions_and_classes_nested_in_functions() -> None:
    source = textwrap.dedent(
        """
        def factory(flag):
            class Local:
                def get(self):
                    return flag
            if flag:
                def pick():
                    return 1
            else:
                def pick():
                    return 2
            return Local, pick
        """
    )
    units = source_units("m.py", source)
    method = Unit("m.py", "factory.<locals>.Local.get")
    assert units.unit_for_qualname(method.name) == method
    assert units.unit_for_qualname("factory.<locals>.Local") == Unit("m.py", "factory")
    assert units.enclosing(method) == (Unit("m.py", "factory"),)
    # Both variants of a redefined name count in its one checksum.
    assert changed_units(source, source.replace("return 1", "return 3")) == {
        "factory.<locals>.pick"
    }
    assert changed_units(source, source.replace("return 2", "return 3")) == {
        "factory.<locals>.pick"
    }
    assert changed_units(source, source.replace("return flag", "return not flag")) == {method.name}
    lines = source.splitlines()
    assert (
        units.unit_at_line(lines.index("            return 2") + 1).name == "factory.<locals>.pick"
    )
    assert units.unit_at_line(lines.index("    return Local, pick") + 1).name == "factory"


def test_top_level_redefinitions_are_one_unit() -> None:
    # A condition the environment fingerprint does not fix (``rts.version_guards``).
    source = "import os\nif os.getenv('X'):\n    def f():\n        return 1\nelse:\n"
    source += "    def f():\n        return 2\n"
    assert changed_units(source, source.replace("return 2", "return 5")) == {"f"}
    assert changed_units(source, source.replace("return 1", "return 5")) == {"f"}


def test_a_version_guard_s_branch_that_does_not_run_is_the_dead_unit() -> None:
    source = "import sys\nif sys.platform:\n    def f():\n        return 1\nelse:\n"
    source += "    def f():\n        return 2\n"
    assert changed_units(source, source.replace("return 1", "return 5")) == {"f"}
    # The dead branch is a unit of its own (``rts.dead_runs`` tells who sees it).
    assert changed_units(source, source.replace("return 2", "return 5")) - {LAYOUT} == {DEAD}
    # The guard's own text is the dead unit's too: importers see the ``f`` that runs now.
    assert changed_units(source, source.replace("sys.platform", "not sys.platform")) == {"f", DEAD}


def test_class_attribute_and_method_header_edits_change_their_members_only() -> None:
    before = checksums(BASE)
    attribute = checksums(BASE.replace("size = 2", "size = 5"))
    # An attribute of a plain class is a member: a unit of its own (rts.class_members).
    assert attribute["Box"] == before["Box"]
    assert attribute["Box.size"] != before["Box.size"]
    assert attribute[MODULE] == before[MODULE]
    header = checksums(BASE.replace("def grow(self, n)", "def grow(self, n=1)"))
    assert header["Box"] == before["Box"]  # a method's header is a member too
    assert header["Box.grow.<def>"] != before["Box.grow.<def>"]
    assert header["Box.grow"] != before["Box.grow"]  # the body has the default's value
    assert header["helper"] == before["helper"]
    assert header[MODULE] == before[MODULE]


def test_unparsable_source_is_an_error() -> None:
    with pytest.raises(SourceError):
        source_units("m.py", "def f(:\n")


def test_code_objects_map_to_their_units() -> None:
    # A file that opens with a `def`: the module's code object starts on that line too.
    source = "def first(x):\n    return x + 1\n\n\nclass Box:\n"
    source += "    def get(self):\n        return 1\n"
    units = source_units("m.py", source)
    module_code = compile(source, "m.py", "exec")
    codes = {c.co_name: c for c in module_code.co_consts if hasattr(c, "co_code")}
    assert units.unit_for_code(module_code) == Unit("m.py", MODULE)
    assert units.unit_for_code(codes["first"]) == Unit("m.py", "first")
    assert units.unit_for_code(codes["Box"]) == Unit("m.py", MODULE)
    getter = next(c for c in codes["Box"].co_consts if hasattr(c, "co_code"))
    assert units.unit_for_code(getter) == Unit("m.py", "Box.get")


def test_nested_code_objects_map_to_the_innermost_function() -> None:
    units = source_units("m.py", BASE)
    module_code = compile(BASE, "m.py", "exec")
    helper = next(c for c in module_code.co_consts if getattr(c, "co_name", "") == "helper")
    inner = next(c for c in helper.co_consts if getattr(c, "co_name", "") == "inner")
    assert units.unit_for_code(helper) == Unit("m.py", "helper")
    assert units.unit_for_code(inner) == Unit("m.py", "helper.<locals>.inner")
    # Without co_qualname (3.10) the line decides.
    assert units.unit_at_line(inner.co_firstlineno) == Unit("m.py", "helper.<locals>.inner")


def test_bindings_and_the_module_part() -> None:
    source = textwrap.dedent(
        """
        import os
        from m import *

        __all__ = ["f"]
        A = 1
        B = A + 1
        C = make()


        @register
        def hooked():
            return 1


        @staticmethod
        def f():
            return B


        def pytest_configure(config):
            pass


        class K(metaclass=Meta):
            x = 1
        """
    )
    units = source_units("m.py", source)
    # Plain bindings are units of their own (``__all__`` too: a star import reads it);
    # calls, registrations, names looked up by name and metaclasses stay in the module part.
    assert {"A", "B", "f", "__all__"} <= set(units.checksums)
    assert not {"C", "K"} & set(units.checksums)
    assert units.refs["B"] == frozenset({"A"})
    assert {"make", "register", "Meta"} <= units.residue_refs

    def module_changes(old: str, new: str) -> bool:
        return checksums(source.replace(old, new))[MODULE] != checksums(source)[MODULE]

    assert not module_changes("A = 1", "A = 1\nD = 4\n\n\ndef g():\n    return D\n")
    assert not module_changes('["f"]', '["f", "g"]')  # the `__all__` unit's change
    assert module_changes("return 1", "return 1\n\n\n@register\ndef more():\n    pass\n")
    assert module_changes("pytest_configure(config)", "pytest_configure(config, more=1)")
    assert module_changes("x = 1", "x = 2")


def test_docstring_edit_changes_only_the_docstring_unit() -> None:
    documented = BASE.replace("def grow(self, n):\n", 'def grow(self, n):\n        """Grow."""\n')
    assert changed_units(BASE, documented) == {"Box.grow.<doc>"}
    reworded = documented.replace('"""Grow."""', '"""Grow by n."""')
    assert changed_units(documented, reworded) == {"Box.grow.<doc>"}
    recoded = documented.replace("self.size + n", "n + self.size")
    assert changed_units(documented, recoded) == {"Box.grow"}
