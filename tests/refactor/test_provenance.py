"""``build_provenance`` on texts before/after: each origin, and when it must say inexact."""

from __future__ import annotations

from lsp_server.refactor.provenance import Hints, build_provenance, qualname_renamer
from lsp_server.rts.file_units import Unit
from lsp_server.rts.provenance import Origin
from lsp_server.rts.unit_names import MODULE

BEFORE = "def f(x):\n    return x + 1\n\n\ndef g():\n    return f(1)\n"


def origins(prov) -> set[tuple[Origin, str | None, str | None]]:
    return {
        (c.origin, str(c.old) if c.old else None, str(c.new) if c.new else None)
        for c in prov.changes
    }


def test_same_text_gives_no_change():
    prov = build_provenance("rename", "", {"m.py": BEFORE}, {"m.py": BEFORE}, {}, Hints())
    assert prov.changes == [] and prov.exact


def test_comment_only_change_is_not_a_modification():
    after = BEFORE.replace("return x + 1", "return x + 1  # one more")
    prov = build_provenance("rename", "", {"m.py": BEFORE}, {"m.py": after}, {}, Hints())
    assert prov.changes == []


def test_rename_pairs_replaced_units_and_modifies_callers():
    after = BEFORE.replace("f(", "h(")
    prov = build_provenance(
        "rename",
        "",
        {"m.py": BEFORE},
        {"m.py": after},
        {},
        Hints(name_map=qualname_renamer("f", "h")),
    )
    assert origins(prov) == {
        (Origin.REPLACED, "m.py::f", "m.py::h"),
        (Origin.REPLACED, "m.py::f.<def>", "m.py::h.<def>"),
        (Origin.REPLACED, "m.py::f.<doc>", "m.py::h.<doc>"),
        (Origin.REPLACED, "m.py::f.<defaults>", "m.py::h.<defaults>"),
        (Origin.MODIFIED, "m.py::g", "m.py::g"),
    }  # the renamed ``def`` line belongs to the function's header unit, not to the module's
    assert prov.exact


def test_unexplained_new_unit_makes_it_inexact():
    after = BEFORE + "\n\ndef new():\n    return 2\n"
    prov = build_provenance("use-function", "", {"m.py": BEFORE}, {"m.py": after}, {}, Hints())
    assert (Origin.CREATED, None, "m.py::new") in origins(prov)
    assert not prov.exact


def test_created_units_are_exact_when_the_kind_creates_code():
    after = BEFORE + "\n\ndef new():\n    return 2\n"
    prov = build_provenance(
        "encapsulate-field", "", {"m.py": BEFORE}, {"m.py": after}, {}, Hints(creates=True)
    )
    assert prov.exact


def test_removed_unit_is_inexact_unless_the_kind_removes_code():
    after = "def g():\n    return 1 + 1\n"
    loose = build_provenance("rename", "", {"m.py": BEFORE}, {"m.py": after}, {}, Hints())
    inline = build_provenance(
        "inline-method", "", {"m.py": BEFORE}, {"m.py": after}, {}, Hints(removes=True)
    )
    assert (Origin.REMOVED, "m.py::f", None) in origins(loose) and not loose.exact
    assert (Origin.REMOVED, "m.py::f", None) in origins(inline) and inline.exact


def test_module_move_replaces_every_unit_under_the_new_path():
    prov = build_provenance(
        "move-module",
        "",
        {"a/m.py": BEFORE, "b/m.py": None},
        {"a/m.py": None, "b/m.py": BEFORE},
        {"a/m.py": "b/m.py"},
        Hints(),
    )
    assert origins(prov) == {
        (Origin.REPLACED, "a/m.py", "b/m.py"),
        (Origin.REPLACED, "a/m.py::f", "b/m.py::f"),
        (Origin.REPLACED, "a/m.py::g", "b/m.py::g"),
        (Origin.REPLACED, "a/m.py::f.<def>", "b/m.py::f.<def>"),
        (Origin.REPLACED, "a/m.py::f.<doc>", "b/m.py::f.<doc>"),
        (Origin.REPLACED, "a/m.py::f.<defaults>", "b/m.py::f.<defaults>"),
        (Origin.REPLACED, "a/m.py::g.<def>", "b/m.py::g.<def>"),
        (Origin.REPLACED, "a/m.py::g.<doc>", "b/m.py::g.<doc>"),
        (Origin.REPLACED, "a/m.py::g.<defaults>", "b/m.py::g.<defaults>"),
    }
    assert prov.files_after["a/m.py"] is None and prov.files_before["b/m.py"] is None


def test_derived_units_name_their_source():
    after = BEFORE + "\n\ndef helper():\n    return 1\n"
    source = Unit("m.py", "g")
    prov = build_provenance(
        "extract-method", "", {"m.py": BEFORE}, {"m.py": after}, {}, Hints(derived_from=[source])
    )
    derived = [c for c in prov.changes if c.origin is Origin.DERIVED]
    assert [(c.old, c.new, c.sources) for c in derived] == [
        (source, Unit("m.py", "helper"), (source,)),
        (source, Unit("m.py", "helper.<def>"), (source,)),
        (source, Unit("m.py", "helper.<defaults>"), (source,)),
        (source, Unit("m.py", "helper.<doc>"), (source,)),
    ]


def test_unparsable_side_is_inexact_module_change():
    prov = build_provenance("rename", "", {"m.py": BEFORE}, {"m.py": "def f(:\n"}, {}, Hints())
    assert origins(prov) == {(Origin.MODIFIED, "m.py", "m.py")}
    assert Unit("m.py", MODULE) == prov.changes[0].old and not prov.exact
