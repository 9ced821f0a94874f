"""For every refactoring kind: after REKS, the store says what a fresh ``--reks-all``
recording says (up to the documented over-approximation), nothing is selected, and the
suite still passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.rts.unit_names import NAMES
from tests.support.reks import Deps, Reks, dependencies, run_pytest, selected


def assert_like_fresh(root: Path, *, exact: bool) -> Deps:
    """REKS deps cover the fresh recording's with the same checksums (equal when exact)."""
    assert selected(root) == {}
    updated = dependencies(root)
    result = run_pytest(root, "--reks-all")
    assert result.returncode == 0, result.stdout + result.stderr
    fresh = dependencies(root)
    assert set(updated) == set(fresh)
    for nodeid, units in fresh.items():
        # The names a test reads (``<names>`` units) come from the code it runs: REKS
        # carries those of renamed and derived units, the rest is learned when it runs.
        units = {u: c for u, c in units.items() if u.path != NAMES}
        mine = {u: c for u, c in updated[nodeid].items() if u.path != NAMES}
        missing = set(units) - set(mine)
        assert not missing, f"{nodeid} lacks {sorted(map(str, missing))}"
        for unit, checksum in units.items():
            assert mine[unit] == checksum, f"{nodeid}: {unit} checksum differs"
        if exact:
            extra = set(mine) - set(units)
            assert not extra, f"{nodeid} has extra {sorted(map(str, extra))}"
    return updated


CASES = [
    # (action, file, needle, delta, args, exact-equality expected)
    ("rename", "pkg/util.py", "def _helper", 4, {"new_name": "_plus_one"}, True),
    ("rename", "pkg/util.py", "def bump", 4, {"new_name": "increment"}, True),
    ("rename", "pkg/util.py", "class Counter", 6, {"new_name": "Tally"}, True),
    ("rename", "pkg/util.py", "total = double", 0, {"new_name": "acc"}, True),
    ("rename", "pkg/util.py", "", 0, {"new_name": "helpers", "module": True}, True),
    # A function with a nested one, and the nested one (units of their own).
    ("rename", "pkg/other.py", "def make_scaler", 4, {"new_name": "scaler_for"}, True),
    ("rename", "pkg/other.py", "def scale(", 4, {"new_name": "times"}, True),
    ("extract-method", "pkg/util.py", "total * 2", 0, {"name": "twice", "length": 9}, False),
    ("extract-variable", "pkg/shapes.py", "area(w, h))", 0, {"name": "a", "length": 10}, True),
    ("inline", "pkg/util.py", "def _helper", 4, {}, True),
    ("move", "pkg/shapes.py", "def area", 4, {"destination": "pkg/other.py"}, False),
    ("organize-imports", "pkg/util.py", "", 0, {}, True),
    ("encapsulate-field", "pkg/util.py", "self.count = 0", 5, {}, False),
    ("introduce-parameter", "pkg/other.py", "LIMIT)", 0, {"name": "limit"}, False),
]


@pytest.mark.parametrize(
    ("action", "rel", "needle", "delta", "args", "exact"),
    CASES,
    ids=[f"{c[0]}-{c[4].get('new_name', c[4].get('name', ''))}" for c in CASES],
)
def test_kind_updates_dependencies_like_a_fresh_recording(
    reks: Reks,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    action: str,
    rel: str,
    needle: str,
    delta: int,
    args: dict[str, object],
    exact: bool,
) -> None:
    from lsp_server.trust import known_failures

    # The rules themselves, whatever shapes the engine tests learnt (moves with and without
    # a learnt shape's client imports: tested in test_rules_sequences).
    monkeypatch.setattr(known_failures, "DATA_PATH", str(tmp_path / "none.json"))
    before = dependencies(reks.root)
    result, outcome = reks.apply(action, rel, needle, delta, **dict(args))
    assert outcome is not None
    assert outcome.fallback is None, outcome.fallback
    assert result.provenance.exact
    # Plain selection would have run some tests: REKS skips them all. (Organize imports
    # drops unused standard-library imports, bindings nobody read: nothing to skip.)
    assert outcome.skipped_tests or action == "organize-imports", outcome.to_json()
    assert outcome.affected_tests == []
    assert set(outcome.skipped_tests) <= set(before)
    assert_like_fresh(reks.root, exact=exact)
