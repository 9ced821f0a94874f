"""Hand edits and refactorings interleaved: the selection is exactly the hand edits' one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lsp_server.rts.store import DependencyStore
from tests.support.reks import Reks, run_pytest, selected


def hand_edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text()
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1))


def hand_only(recorded_template: Path, tmp_path: Path, edits: list[tuple[str, str, str]]) -> set:
    """The selection plain dependency selection (Ekstazi) makes for the hand edits alone."""
    root = tmp_path / "hand-only"
    shutil.copytree(recorded_template, root)
    for rel, old, new in edits:
        hand_edit(root, rel, old, new)
    return set(selected(root))


def typed_by_hand(recorded_template: Path, tmp_path: Path, files: dict) -> set:
    """Plain selection after writing ``files`` (path -> text) into a fresh copy."""
    plain = tmp_path / "plain"
    shutil.copytree(recorded_template, plain)
    for rel, text in files.items():
        if text is not None:
            (plain / rel).write_text(text)
    return set(selected(plain))


DOUBLE = ("pkg/util.py", "return value * 2", "return value + value")
AREA = ("pkg/shapes.py", "return w * h", "return h * w")
HELPER = ("pkg/util.py", "return x + 1", "return 1 + x")


def test_mixed_sequence_selects_exactly_the_hand_edits(
    reks: Reks, recorded_template: Path, tmp_path: Path
) -> None:
    hand_edit(reks.root, *DOUBLE)
    _, first = reks.apply("rename", "pkg/util.py", "def _helper", 4, new_name="_plus_one")
    hand_edit(reks.root, *AREA)
    _, second = reks.apply("extract-method", "pkg/util.py", "total * 2", name="twice", length=9)
    assert first is not None and second is not None
    assert first.fallback is None and second.fallback is None
    expected = hand_only(recorded_template, tmp_path, [DOUBLE, AREA])
    assert expected == {
        "tests/test_util.py::test_double",
        "tests/test_util.py::test_quadruple",
        "tests/test_shapes.py::test_area",
        "tests/test_shapes.py::test_scaled_area",
    }
    assert set(selected(reks.root)) == expected
    # A real `pytest --reks` run runs exactly those, and they pass.
    result = run_pytest(reks.root, "--reks", "-rA")
    assert result.returncode == 0, result.stdout
    ran = {line.split(" ")[1] for line in result.stdout.splitlines() if line.startswith("PASSED ")}
    assert ran == expected
    assert selected(reks.root) == {}


def test_hand_edited_unit_is_not_refreshed_by_a_rename(
    reks: Reks, recorded_template: Path, tmp_path: Path
) -> None:
    hand_edit(reks.root, *HELPER)
    _, outcome = reks.apply("rename", "pkg/util.py", "def _helper", 4, new_name="_plus_one")
    assert outcome is not None
    assert [str(u) for u in outcome.developer_units] == ["pkg/util.py::_helper"]
    expected = hand_only(recorded_template, tmp_path, [HELPER])
    assert expected  # the tests of _helper
    assert set(outcome.affected_tests) == expected
    assert set(selected(reks.root)) == expected


def test_hand_edited_unit_inlined_away_still_selects_its_tests(
    reks: Reks, recorded_template: Path, tmp_path: Path
) -> None:
    hand_edit(reks.root, *HELPER)
    _, outcome = reks.apply("inline", "pkg/util.py", "def _helper", 4)
    assert outcome is not None and outcome.fallback is None
    expected = hand_only(recorded_template, tmp_path, [HELPER])
    assert set(selected(reks.root)) == expected


def test_hand_edit_then_extract_method_from_it(
    reks: Reks, recorded_template: Path, tmp_path: Path
) -> None:
    edit = ("pkg/util.py", "total = double(value)", "total = double(value) + 0")
    hand_edit(reks.root, *edit)
    _, outcome = reks.apply("extract-method", "pkg/util.py", "total * 2", name="twice", length=9)
    assert outcome is not None
    expected = hand_only(recorded_template, tmp_path, [edit])
    assert expected == {"tests/test_util.py::test_quadruple"}
    assert set(selected(reks.root)) == expected


def test_refactoring_after_a_refactoring_is_still_skipped(reks: Reks) -> None:
    reks.apply("rename", "pkg/util.py", "def _helper", 4, new_name="_plus_one")
    _, outcome = reks.apply("rename", "pkg/util.py", "def _plus_one", 4, new_name="_inc")
    assert outcome is not None and outcome.skipped_tests and not outcome.affected_tests
    assert selected(reks.root) == {}


def test_non_exact_provenance_falls_back_to_plain_selection(
    reks: Reks, recorded_template: Path, tmp_path: Path
) -> None:
    result = reks.engine.compute(
        reks.request("rename", "pkg/util.py", "def _helper", 4, new_name="_plus_one")
    )
    result.provenance.exact = False  # what the engine says when it cannot tell
    reks.engine.apply(result, str(reks.root))
    outcome = reks.listener.last
    assert outcome is not None and outcome.fallback is not None
    assert outcome.skipped_tests == [] and outcome.affected_tests
    # The same as if the developer had typed the rename.
    plain = typed_by_hand(recorded_template, tmp_path, result.provenance.files_after)
    assert set(selected(reks.root)) == plain == set(outcome.affected_tests)


def test_refactoring_outside_reks_is_an_ordinary_edit(
    reks: Reks, recorded_template: Path, tmp_path: Path
) -> None:
    result = reks.engine.compute(
        reks.request("rename", "pkg/util.py", "def _helper", 4, new_name="_plus_one")
    )
    reks.engine.listeners.clear()  # another tool wrote the same edit
    reks.engine.apply(result, str(reks.root))
    plain = typed_by_hand(recorded_template, tmp_path, result.provenance.files_after)
    # The `def` line belongs to the function: only the tests that ran it or read its
    # name run, not every test importing util.py.
    assert "tests/test_util.py::test_double" not in plain
    assert "tests/test_shapes.py::test_scaled_area" in plain
    assert set(selected(reks.root)) == plain


def test_trust_but_verify_failure_is_a_hand_edit(reks: Reks) -> None:
    # rope renames `c.bump` on an untyped `c` (the only `bump` there is); jedi does not.
    hand_edit(
        reks.root,
        "pkg/other.py",
        "LIMIT = 10\n",
        "LIMIT = 10\n\n\ndef use(c):\n    return c.bump(1)\n",
    )
    with DependencyStore(reks.root) as store:
        assert store.recorded_checksum(_unit("pkg/util.py", "Counter.bump"))
    _, outcome = reks.apply("rename", "pkg/util.py", "def bump", 4, new_name="increment")
    assert outcome is not None
    assert outcome.fallback is not None and "jedi" in outcome.fallback
    assert "tests/test_util.py::test_counter" in outcome.affected_tests
    assert "tests/test_util.py::test_counter" in selected(reks.root)


def test_the_rules_time_is_reported(reks: Reks) -> None:
    # The goal (under 50 ms) is a benchmark's (bench/reks_systematic.py), not a timed test.
    _, outcome = reks.apply("rename", "pkg/util.py", "def double", 4, new_name="twice")
    assert outcome is not None and outcome.fallback is None
    assert outcome.seconds > 0


def _unit(path: str, name: str):  # type: ignore[no-untyped-def]
    from lsp_server.rts.file_units import Unit

    return Unit(path, name)


def test_known_failing_shape_is_a_hand_edit(
    reks: Reks, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lsp_server.trust import known_failures

    # A learnt shape without features matches every rename (the safe reading of the data).
    shape = known_failures.FailureShape(
        engine="reks",
        refactoring="rename",
        oracle="run-and-compare",
        features=frozenset(),
        signature=(),
        count=1,
        example="",
        detail="output differs",
    )
    data = tmp_path / "known_failures.json"
    data.write_text(known_failures.dumps([shape], {"rope": "x", "jedi": "y"}))
    monkeypatch.setattr(known_failures, "DATA_PATH", str(data))
    result, outcome = reks.apply("rename", "pkg/util.py", "def _helper", 4, new_name="_plus_one")
    assert result.provenance.target is not None
    assert result.provenance.target.action == "rename"
    assert outcome is not None and outcome.fallback is not None
    assert "known reks failure of rename" in outcome.fallback
    assert set(selected(reks.root)) == set(outcome.affected_tests) != set()


def test_rename_in_a_module_with_dynamic_global_lookup_is_a_hand_edit(reks: Reks) -> None:
    # A deprecation shim (click does this): `util.helper` still resolves to `_helper` by name.
    shim = (
        'def __getattr__(name):\n    if name in {"helper"}:\n        return globals()[f"_{name}"]\n'
    )
    hand_edit(reks.root, "pkg/util.py", "import os\n", f"import os\n\n\n{shim}")
    _, outcome = reks.apply("rename", "pkg/util.py", "def _helper", 4, new_name="_plus_one")
    assert outcome is not None and outcome.fallback is not None
    assert "may look `_helper` up by name" in outcome.fallback
    assert "tests/test_util.py::test_counter" in outcome.affected_tests
    # A global the shim does not name is trusted.
    _, outcome = reks.apply("rename", "pkg/util.py", "def double", 4, new_name="twice")
    assert outcome is not None and outcome.fallback is None


def test_project_without_a_store_is_left_alone(recorded_template: Path, tmp_path: Path) -> None:
    from lsp_server.refactor.engine import RefactorEngine
    from lsp_server.trust.task_listener import install

    root = tmp_path / "fresh"
    shutil.copytree(recorded_template, root, ignore=shutil.ignore_patterns(".reks"))
    engine = RefactorEngine()
    engine.add_root(str(root))
    listener = install(engine, report=None)
    try:
        reks = Reks(root, engine, listener)
        _, outcome = reks.apply("rename", "pkg/util.py", "def double", 4, new_name="twice")
    finally:
        engine.close()
    assert outcome is None  # no test was ever recorded: nothing to update
    assert not (root / ".reks").exists()
    assert "def twice" in (root / "pkg/util.py").read_text()


def test_rename_of_a_name_in_dunder_all_is_a_hand_edit(reks: Reks) -> None:
    # rope does not rename the string in `__all__`: `from pkg.util import *` would fail.
    hand_edit(reks.root, "pkg/util.py", "import os\n", 'import os\n\n__all__ = ["double"]\n')
    _, outcome = reks.apply("rename", "pkg/util.py", "def double", 4, new_name="twice")
    assert outcome is not None and outcome.fallback is not None
    assert "`__all__` lists 'double'" in outcome.fallback


def test_move_with_plain_client_imports_is_trusted(reks: Reks) -> None:
    # tests/test_shapes.py imports `area` plainly (`from pkg.shapes import area`), which
    # rope updates: the learnt move shapes need an aliased or relative client import.
    result, outcome = reks.apply("move", "pkg/shapes.py", "def area", 4, destination="pkg/other.py")
    assert result.provenance.kind == "move-global"
    assert outcome is not None and outcome.fallback is None, outcome.fallback
    assert outcome.skipped_tests and outcome.affected_tests == []
    assert selected(reks.root) == {}
    result_run = run_pytest(reks.root)
    assert result_run.returncode == 0, result_run.stdout + result_run.stderr


@pytest.mark.parametrize(
    ("client", "mended"),
    [
        (
            "from pkg.shapes import area as surface\n\n\ndef report():\n    return surface(1, 2)\n",
            "from pkg.other import area as surface\n",
        ),
        (
            "from .shapes import area\n\n\ndef report():\n    return area(1, 2)\n",
            "from .other import area\n",
        ),
    ],
    ids=["aliased", "relative"],
)
def test_move_mends_the_client_imports_rope_leaves_behind_and_is_trusted(
    reks: Reks, client: str, mended: str
) -> None:
    from lsp_server.trust.checks import check_known_failures

    (reks.root / "pkg/report.py").write_text(client)
    result, outcome = reks.apply("move", "pkg/shapes.py", "def area", 4, destination="pkg/other.py")
    # rope leaves the import alone; reks points it at the new module.
    assert (reks.root / "pkg/report.py").read_text().startswith(mended)
    assert outcome is not None and outcome.fallback is None, outcome.fallback
    assert check_known_failures(str(reks.root), result.provenance) is None
    result_run = run_pytest(reks.root)
    assert result_run.returncode == 0, result_run.stdout + result_run.stderr


def test_a_move_carries_the_reads_of_a_modules_globals(reks: Reks) -> None:
    # clip reads `min` as a global of other.py (recorded for that module alone).
    _, outcome = reks.apply("move", "pkg/other.py", "def clip", 4, destination="pkg/shapes.py")
    assert outcome is not None and outcome.fallback is None
    assert selected(reks.root) == {}
    # Moved, it reads shapes.py's globals: a `min` defined there shadows the builtin.
    hand_edit(reks.root, "pkg/shapes.py", "def area", "def min(a, b):\n    return a\n\n\ndef area")
    assert "tests/test_other.py::test_clip" in selected(reks.root)
