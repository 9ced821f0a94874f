"""Unit extraction and normalized checksums."""

from __future__ import annotations

import textwrap

import pytest

from lsp_server.rts.units import MODULE, SourceError, Unit, source_units

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
    assert set(units.checksums) == {MODULE, "Box.grow", "Box.area", "helper"}
    assert units.unit_for_qualname("helper.<locals>.inner") == Unit("m.py", "helper")
    assert units.unit_for_qualname("Box") == Unit("m.py", MODULE)
    assert units.unit_at_line(units.spans["Box.area"].def_line) == Unit("m.py", "Box.area")


def test_comments_and_layout_do_not_count() -> None:
    continued = "return self.size + \\\n                n  # grow"
    edited = BASE.replace("return self.size + n", continued)
    edited = edited.replace("LIMIT = 3", "LIMIT = 3  # max\n\n\n")
    assert checksums(edited) == checksums(BASE)


def test_body_edit_changes_only_that_function() -> None:
    before, after = checksums(BASE), checksums(BASE.replace("y + 1", "y + 2"))
    changed = {k for k in before if before[k] != after[k]}
    assert changed == {"helper"}


def test_class_attribute_and_header_edits_change_module_part() -> None:
    before = checksums(BASE)
    assert checksums(BASE.replace("size = 2", "size = 5"))[MODULE] != before[MODULE]
    header = checksums(BASE.replace("def grow(self, n)", "def grow(self, n=1)"))
    assert header[MODULE] != before[MODULE]
    assert header["Box.grow"] != before["Box.grow"]
    assert header["helper"] == before["helper"]


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
