"""The refactoring engine on a real temporary project with real rope."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lsp_server.jobs import Cancelled
from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.model import (
    FileEdit,
    FileRename,
    InvalidNameError,
    RefactoringError,
    RefactorRequest,
)
from lsp_server.refactor.rope_thread import RopeJob
from lsp_server.rts.file_units import Unit
from lsp_server.rts.provenance import Origin
from lsp_server.rts.unit_names import MODULE


def at(path: Path, needle: str, delta: int = 0) -> int:
    text = path.read_text()
    index = text.index(needle)
    return index + delta


def req(action: str, path: Path, offset: int, end: int | None = None, **args: object):
    return RefactorRequest(action, str(path), offset, end, dict(args))


def changes_of(result, origin: Origin) -> set[tuple[str | None, str | None]]:
    return {
        (str(c.old) if c.old else None, str(c.new) if c.new else None)
        for c in result.provenance.changes
        if c.origin is origin
    }


def test_rename_method_renames_overrides_and_super_calls(
    engine: RefactorEngine, project: Path, run_tests
):
    shapes = project / "geometry/shapes.py"
    result = engine.compute(req("rename", shapes, at(shapes, "def area") + 4, new_name="surface"))
    engine.apply(result, str(project))
    text = shapes.read_text()
    assert ".area" not in text and "def area" not in text
    assert "shape.surface(scale)" in text  # receiver of unknown type, unambiguous name
    assert "super().surface(scale)" in text
    assert "self.surface(1)" in text
    assert changes_of(result, Origin.REPLACED) == {
        ("geometry/shapes.py::Shape.area", "geometry/shapes.py::Shape.surface"),
        ("geometry/shapes.py::Square.area", "geometry/shapes.py::Square.surface"),
        ("geometry/shapes.py::Shape.area.<def>", "geometry/shapes.py::Shape.surface.<def>"),
        ("geometry/shapes.py::Shape.area.<doc>", "geometry/shapes.py::Shape.surface.<doc>"),
        (
            "geometry/shapes.py::Shape.area.<defaults>",
            "geometry/shapes.py::Shape.surface.<defaults>",
        ),
        ("geometry/shapes.py::Square.area.<def>", "geometry/shapes.py::Square.surface.<def>"),
        ("geometry/shapes.py::Square.area.<doc>", "geometry/shapes.py::Square.surface.<doc>"),
        (
            "geometry/shapes.py::Square.area.<defaults>",
            "geometry/shapes.py::Square.surface.<defaults>",
        ),
    }
    assert result.provenance.exact
    (project / "tests/test_app.py").write_text(
        (project / "tests/test_app.py").read_text().replace(".area(3)", ".surface(3)")
    )
    assert run_tests(project).returncode == 0


def test_rename_local_and_parameter_only_modify(engine: RefactorEngine, project: Path, run_tests):
    shapes = project / "geometry/shapes.py"
    result = engine.compute(req("rename", shapes, at(shapes, "result = 0"), new_name="acc"))
    assert changes_of(result, Origin.MODIFIED) == {
        ("geometry/shapes.py::total_area", "geometry/shapes.py::total_area")
    }
    engine.apply(result, str(project))
    result = engine.compute(req("rename", shapes, at(shapes, "side):"), new_name="length"))
    engine.apply(result, str(project))
    assert "self.side = length" in shapes.read_text()
    assert run_tests(project).returncode == 0


def test_rename_function_across_modules(engine: RefactorEngine, project: Path, run_tests):
    util = project / "geometry/util.py"
    result = engine.compute(req("rename", util, at(util, "def quadruple") + 4, new_name="times4"))
    engine.apply(result, str(project))
    assert "util.times4(" in (project / "app.py").read_text()
    assert changes_of(result, Origin.REPLACED) == {
        ("geometry/util.py::quadruple", "geometry/util.py::times4"),
        ("geometry/util.py::quadruple.<def>", "geometry/util.py::times4.<def>"),
        ("geometry/util.py::quadruple.<doc>", "geometry/util.py::times4.<doc>"),
        ("geometry/util.py::quadruple.<defaults>", "geometry/util.py::times4.<defaults>"),
    }
    assert run_tests(project).returncode == 0


def test_rename_class_replaces_its_methods(engine: RefactorEngine, project: Path, run_tests):
    shapes = project / "geometry/shapes.py"
    result = engine.compute(req("rename", shapes, at(shapes, "class Square") + 6, new_name="Box"))
    replaced = changes_of(result, Origin.REPLACED)
    assert ("geometry/shapes.py::Square.area", "geometry/shapes.py::Box.area") in replaced
    assert ("geometry/shapes.py::Square.__init__", "geometry/shapes.py::Box.__init__") in replaced
    engine.apply(result, str(project))
    assert "from geometry.shapes import Box, total_area" in (project / "app.py").read_text()
    # the test asserts the class name in describe(): it must now fail, as it really changed
    assert run_tests(project).returncode == 1


def test_rename_attribute(engine: RefactorEngine, project: Path, run_tests):
    shapes = project / "geometry/shapes.py"
    result = engine.compute(req("rename", shapes, at(shapes, "self.side =") + 5, new_name="edge"))
    engine.apply(result, str(project))
    assert shapes.read_text().count("self.edge") == 3
    assert run_tests(project).returncode == 0


def test_rename_module_renames_file_and_imports(engine: RefactorEngine, project: Path, run_tests):
    util = project / "geometry/util.py"
    result = engine.compute(req("rename", util, 0, new_name="helpers", module=True))
    assert FileRename(str(util), str(project / "geometry/helpers.py")) in result.edits
    assert ("geometry/util.py::double", "geometry/helpers.py::double") in changes_of(
        result, Origin.REPLACED
    )
    assert result.provenance.files_after["geometry/util.py"] is None
    engine.apply(result, str(project))
    assert not util.exists()
    assert "from geometry import helpers" in (project / "app.py").read_text()
    assert run_tests(project).returncode == 0


def test_rename_package(engine: RefactorEngine, project: Path, run_tests):
    init = project / "geometry/__init__.py"
    result = engine.compute(req("rename", init, 0, new_name="geo", module=True))
    engine.apply(result, str(project))
    assert (project / "geo/shapes.py").exists()
    assert "from geo.shapes import" in (project / "tests/test_app.py").read_text()
    assert ("geometry/shapes.py::Square.area", "geo/shapes.py::Square.area") in changes_of(
        result, Origin.REPLACED
    )
    assert run_tests(project).returncode == 0


@pytest.mark.parametrize(
    ("needle", "new_name", "message"),
    [
        ("def double", "2x", "not a valid"),
        ("def double", "lambda", "keyword"),
        ("def double", "quadruple", "already defined"),
        ("def double", "double", "same as the old"),
    ],
)
def test_invalid_or_clashing_names(
    engine: RefactorEngine, project: Path, needle: str, new_name: str, message: str
):
    util = project / "geometry/util.py"
    before = util.read_text()
    with pytest.raises(InvalidNameError, match=message):
        engine.compute(req("rename", util, at(util, needle) + 4, new_name=new_name))
    assert util.read_text() == before


def test_clashing_method_name(engine: RefactorEngine, project: Path):
    shapes = project / "geometry/shapes.py"
    with pytest.raises(InvalidNameError, match="already defined in `Shape`"):
        engine.compute(req("rename", shapes, at(shapes, "def area") + 4, new_name="describe"))


def test_unparsable_file_is_skipped_not_fatal(engine: RefactorEngine, project: Path):
    broken = project / "geometry/broken.py"
    broken.write_text("from geometry.util import double\ndef f(:\n    double(1)\n")
    util = project / "geometry/util.py"
    result = engine.compute(req("rename", util, at(util, "def double") + 4, new_name="twice"))
    assert [s.path for s in result.skipped_files] == [str(broken)]
    assert "syntax error at line 2" in result.skipped_files[0].reason
    assert {e.path for e in result.edits if isinstance(e, FileEdit)} == {str(util)}


def test_unparsable_own_file_is_an_error(engine: RefactorEngine, project: Path):
    util = project / "geometry/util.py"
    engine.set_overlay(str(util), "def double(:\n")
    with pytest.raises(RefactoringError, match="cannot be parsed"):
        engine.compute(req("rename", util, 5, new_name="twice"))


def test_unsaved_buffer_is_what_gets_refactored(engine: RefactorEngine, project: Path):
    util = project / "geometry/util.py"
    on_disk = util.read_text()
    buffer = on_disk.replace("return value * 2", "return value + value")
    engine.set_overlay(str(util), buffer)
    result = engine.compute(req("rename", util, buffer.index("def double") + 4, new_name="twice"))
    edit = next(e for e in result.edits if isinstance(e, FileEdit) and e.path == str(util))
    assert edit.old_text == buffer
    assert "def twice(value):\n    return value + value" in edit.new_text
    assert util.read_text() == on_disk  # nothing written while computing


def test_failed_apply_leaves_every_file_untouched(engine: RefactorEngine, project: Path):
    util = project / "geometry/util.py"
    result = engine.compute(req("rename", util, at(util, "def double") + 4, new_name="twice"))
    before = {p: p.read_text() for p in project.rglob("*.py")}
    util.write_text(util.read_text() + "\n# edited meanwhile\n")
    before[util] = util.read_text()
    with pytest.raises(RefactoringError, match="changed since"):
        engine.apply(result, str(project))
    assert {p: p.read_text() for p in project.rglob("*.py")} == before


def test_extract_method_provenance_is_derived(engine: RefactorEngine, project: Path, run_tests):
    util = project / "geometry/util.py"
    start = at(util, "double(value) * 2")
    end = start + len("double(value) * 2")
    result = engine.compute(req("extract-method", util, start, end, name="twice_twice"))
    assert changes_of(result, Origin.DERIVED) == {
        ("geometry/util.py::quadruple", "geometry/util.py::twice_twice"),
        ("geometry/util.py::quadruple", "geometry/util.py::twice_twice.<def>"),
        ("geometry/util.py::quadruple", "geometry/util.py::twice_twice.<doc>"),
        ("geometry/util.py::quadruple", "geometry/util.py::twice_twice.<defaults>"),
    }
    engine.apply(result, str(project))
    assert run_tests(project).returncode == 0


def test_extract_variable(engine: RefactorEngine, project: Path, run_tests):
    util = project / "geometry/util.py"
    start = at(util, "value * 2")
    result = engine.compute(req("extract-variable", util, start, start + 9, name="doubled"))
    engine.apply(result, str(project))
    assert "doubled = value * 2" in util.read_text()
    assert run_tests(project).returncode == 0


def test_move_global_is_moved(engine: RefactorEngine, project: Path, run_tests):
    util = project / "geometry/util.py"
    result = engine.compute(
        req("move", util, at(util, "def quadruple") + 4, destination="geometry/shapes.py")
    )
    assert changes_of(result, Origin.MOVED) == {
        ("geometry/util.py::quadruple", "geometry/shapes.py::quadruple"),
        ("geometry/util.py::quadruple.<def>", "geometry/shapes.py::quadruple.<def>"),
        ("geometry/util.py::quadruple.<doc>", "geometry/shapes.py::quadruple.<doc>"),
        ("geometry/util.py::quadruple.<defaults>", "geometry/shapes.py::quadruple.<defaults>"),
    }
    assert result.provenance.exact
    engine.apply(result, str(project))
    assert run_tests(project).returncode == 0


def test_inline_method_is_removed(engine: RefactorEngine, project: Path, run_tests):
    util = project / "geometry/util.py"
    result = engine.compute(req("inline", util, at(util, "def double") + 4))
    assert changes_of(result, Origin.REMOVED) == {
        ("geometry/util.py::double", None),
        ("geometry/util.py::double.<def>", None),
        ("geometry/util.py::double.<doc>", None),
        ("geometry/util.py::double.<defaults>", None),
    }
    assert result.provenance.exact
    engine.apply(result, str(project))
    assert "def double" not in util.read_text()
    assert run_tests(project).returncode == 0


def test_encapsulate_field_creates_accessors(engine: RefactorEngine, project: Path, run_tests):
    shapes = project / "geometry/shapes.py"
    result = engine.compute(req("encapsulate-field", shapes, at(shapes, "self.side =") + 5))
    created = changes_of(result, Origin.CREATED)
    assert (None, "geometry/shapes.py::Square.get_side") in created
    assert result.provenance.exact
    engine.apply(result, str(project))
    assert run_tests(project).returncode == 0


def test_organize_imports_modifies_module_part(engine: RefactorEngine, project: Path):
    util = project / "geometry/util.py"
    result = engine.compute(req("organize-imports", util, 0))
    module = Unit("geometry/util.py", MODULE)
    removed = {Unit("geometry/util.py", "os"), Unit("geometry/util.py", "sys")}
    changes = {(c.origin, c.old) for c in result.provenance.changes}
    # The unused standard-library imports are bindings of their own.
    assert changes <= {(Origin.MODIFIED, module), *((Origin.REMOVED, u) for u in removed)}
    assert {u for _, u in changes} >= removed and result.provenance.exact
    engine.apply(result, str(project))
    assert "import os" not in util.read_text()


def test_method_object_and_introduce_factory(engine: RefactorEngine, project: Path, run_tests):
    shapes = project / "geometry/shapes.py"
    result = engine.compute(req("method-object", shapes, at(shapes, "def describe") + 4))
    derived = changes_of(result, Origin.DERIVED)
    assert derived and all(old == "geometry/shapes.py::Shape.describe" for old, _ in derived)
    result = engine.compute(
        req("introduce-factory", shapes, at(shapes, "class Square") + 6, name="create")
    )
    assert (None, "geometry/shapes.py::Square.create") in changes_of(result, Origin.CREATED)
    engine.apply(result, str(project))
    assert run_tests(project).returncode == 0


def test_cancel_reaches_rope(engine: RefactorEngine, project: Path):
    util = project / "geometry/util.py"
    job = RopeJob()
    job.cancel()
    assert job.handle.is_stopped()
    with pytest.raises(Cancelled):
        engine.compute(req("rename", util, at(util, "def double") + 4, new_name="twice"), job)


def test_crlf_file_keeps_its_line_endings(engine: RefactorEngine, project: Path):
    util = project / "geometry/util.py"
    util.write_bytes(util.read_text().replace("\n", "\r\n").encode())
    text = util.read_bytes().decode()
    result = engine.compute(req("rename", util, text.index("def quadruple") + 4, new_name="q4"))
    edit = next(e for e in result.edits if isinstance(e, FileEdit) and e.path == str(util))
    assert "def q4(value):\r\n" in edit.new_text


def test_broken_rope_output_is_refused(engine: RefactorEngine, project: Path):
    util = project / "geometry/util.py"
    buffer = util.read_text().replace("double(value) * 2", "double(double(value))")
    engine.set_overlay(str(util), buffer)
    # rope inlines nested calls of the inlined function into code that no longer runs
    with pytest.raises(RefactoringError, match="undefined names"):
        engine.compute(req("inline", util, buffer.index("def double") + 4))


def test_prewarm_parses_every_module(engine: RefactorEngine, project: Path):
    workspace = engine.workspace_for(str(project / "app.py"))
    seen: list[tuple[int, int | None]] = []
    from lsp_server.jobs import Job

    workspace.prewarm(Job(on_progress=lambda d, t, m: seen.append((d, t)))).result(timeout=60)
    assert workspace.is_warm
    assert seen and seen[-1][0] == seen[-1][1]


def test_cancelling_a_running_rename_stops_rope(tmp_path: Path):
    root = tmp_path / "many"
    root.mkdir()
    (root / "base.py").write_text("def target(x):\n    return x\n")
    for i in range(100):
        (root / f"user{i}.py").write_text(
            "from base import target\n\n\n"
            + "".join(f"def f{j}(a):\n    return target(a) + {j}\n\n\n" for j in range(20))
        )
    engine = RefactorEngine()
    engine.add_root(str(root))
    request = req("rename", root / "base.py", 4, new_name="aim")
    try:
        job = RopeJob()
        future = engine.submit(request, job)
        # wait until rope is really searching (it registers its job sets on the handle)
        deadline = time.monotonic() + 30
        while not job.handle.get_jobsets() and time.monotonic() < deadline:
            time.sleep(0.001)
        assert job.handle.get_jobsets(), "rope never started"
        job.cancel()
        with pytest.raises(Cancelled):
            future.result(timeout=30)
        assert not future.cancelled()  # it ran, and rope itself stopped
        # the worker is still usable afterwards
        assert engine.prepare_rename(str(root / "base.py"), 4).name == "target"
    finally:
        engine.close()


def test_move_method_to_an_attributes_class(tmp_path: Path):
    root = tmp_path / "mm"
    root.mkdir()
    (root / "bank.py").write_text(
        "class Ledger:\n"
        "    def __init__(self):\n"
        "        self.entries = []\n"
        "\n"
        "\n"
        "class Account:\n"
        "    def __init__(self):\n"
        "        self.ledger = Ledger()\n"
        "\n"
        "    def record(self, amount):\n"
        "        return len(self.ledger.entries) + amount\n"
    )
    from lsp_server.refactor.actions import offers_at

    text = (root / "bank.py").read_text()
    offers = [o for o in offers_at(text, text.index("def record") + 4) if o.action == "move"]
    assert [o.args for o in offers if o.kind == "refactor.move.method"] == [
        {"destination": "ledger"}
    ]
    engine = RefactorEngine()
    engine.add_root(str(root))
    try:
        offer = next(o for o in offers if o.kind == "refactor.move.method")
        result = engine.compute(req("move", root / "bank.py", offer.offset, **offer.args))
        new = next(e for e in result.edits if isinstance(e, FileEdit)).new_text
        assert "return self.ledger.record(self, amount)" in new
        moved = changes_of(result, Origin.MOVED)
        assert moved == {
            ("bank.py::Account.record", "bank.py::Ledger.record"),
            ("bank.py::Account.record", "bank.py::Ledger.record.<def>"),
            ("bank.py::Account.record", "bank.py::Ledger.record.<doc>"),
            ("bank.py::Account.record", "bank.py::Ledger.record.<defaults>"),
        }
    finally:
        engine.close()


@pytest.mark.parametrize(
    ("action", "name", "message"),
    [
        ("extract-method", "double", "already defined in the module"),
        ("extract-variable", "value", "already defined in `quadruple`"),
    ],
)
def test_extract_with_a_taken_name_is_an_error(
    engine: RefactorEngine, project: Path, action: str, name: str, message: str
):
    util = project / "geometry/util.py"
    start = at(util, "double(value) * 2")
    with pytest.raises(InvalidNameError, match=message):
        engine.compute(req(action, util, start, start + len("double(value)"), name=name))


def test_rename_output_check_catches_a_use_left_behind():
    from lsp_server.refactor.edit_check import check_edit

    old = "def alpha():\n    return 1\n\n\nx = alpha()\n"
    left_behind = "def beta():\n    return 1\n\n\nx = alpha()\n"
    names = frozenset({"alpha", "beta"})
    with pytest.raises(RefactoringError, match=r"undefined names in m\.py: alpha") as info:
        check_edit(FileEdit("/p/m.py", old, left_behind), "m.py", names)
    # The message says where, and that the engine failed, not the user's file.
    assert "(line 5)" in str(info.value)
    assert "limit of the refactoring engine, not a fault in your code" in str(info.value)
    check_edit(FileEdit("/p/m.py", old, old.replace("alpha", "beta")), "m.py", names)
    star = "from os import *\n"  # a star import may provide anything
    check_edit(FileEdit("/p/m.py", star + old, star + left_behind), "m.py", names)


def test_a_rename_parses_each_searched_file_once(
    tmp_project: tuple[Path, RefactorEngine], monkeypatch: pytest.MonkeyPatch
):
    """Whether a file parses is asked of rope, which parses it to search it anyway: a
    syntax check of our own first parsed every searched file twice (half the time of a
    first rename and of the pre-warm)."""
    import ast

    root, engine = tmp_project
    (root / "base.py").write_text("def target(x):\n    return x\n")
    for i in range(3):
        (root / f"user{i}.py").write_text(f"from base import target\n\nU{i} = target({i})\n")
    parsed: list[str] = []
    real_parse = ast.parse

    def counted(source, *args, **kwargs):  # type: ignore[no-untyped-def]
        text = source.decode() if isinstance(source, bytes) else source
        parsed.append(text)
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counted)
    base = root / "base.py"
    request = RefactorRequest(
        "rename", str(base), base.read_text().index("target"), args={"new_name": "aim"}
    )
    result = engine.compute(request)
    assert len([e for e in result.edits if isinstance(e, FileEdit)]) == 4
    for i in range(3):
        text = (root / f"user{i}.py").read_text()
        assert parsed.count(text) == 1, f"user{i}.py parsed {parsed.count(text)} times"
