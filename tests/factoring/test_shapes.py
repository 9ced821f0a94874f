"""Capture and replay on temporary projects, one boundary shape per test: replay gives the
system test's outcome, a changed T whose system test fails never passes factored, and a
changed E makes the factored test stale.

The shapes share one project, factored once (three pytest runs for all of them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.factoring import FactorResult, factor_tests, stale_factored_tests
from tests.factoring.helpers import ENV, edit, factor, make_project, outcomes

LOGIC = """
from app import env


def summarise(x):
    data = env.compute(x)
    return data["double"] + sum(data["pair"]) + data["items"][1]


def safe_fail(store):
    try:
        store.fail("k")
    except KeyError as exc:
        return "missing " + exc.args[0]


def use_store():
    store = env.open_store("s")
    assert isinstance(store, env.Store)
    store.put("b")
    store.put("a")
    store.mode = "w"
    seen = [row for row in store.scan()]
    with store as same:
        assert same is store
    assert store.same() is store
    return store.size, store.mode, seen


def by_length(row):
    return len(row)


def ordered():
    store = env.open_store("s")
    for row in ("ccc", "a", "bb"):
        store.put(row)
    into = []
    store.fill(into)
    return store.sort_by(by_length), into
"""

TESTS = """
from app import env, logic


def test_calls():
    assert logic.summarise(3) == 6 + 6 + 4
    assert logic.safe_fail(env.open_store("s")) == "missing k"


def test_objects():
    assert logic.use_store() == (2, "w", ["b", "a"])


def test_callbacks():
    assert logic.ordered() == (["a", "bb", "ccc"], ["ccc", "a", "bb"])
"""

SHAPES = {
    # shape -> an edit of T that makes its system test fail
    "tests/test_logic.py::test_calls": ('+ data["items"][1]', '+ data["items"][0]'),
    "tests/test_logic.py::test_objects": ("return store.size,", "return store.size + 1,"),
    # a changed sort key: the callback's recorded results no longer match
    "tests/test_logic.py::test_callbacks": ("return len(row)", "return -len(row)"),
}


@pytest.fixture(scope="module")
def shapes(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, dict[str, FactorResult]]]:
    root = make_project(tmp_path_factory.mktemp("shapes"), LOGIC, TESTS)
    results = factor_tests(root, list(SHAPES), ["app.env"])
    yield root, dict(zip(SHAPES, results, strict=True))


def test_replay_gives_the_system_outcome_faster(
    shapes: tuple[Path, dict[str, FactorResult]],
) -> None:
    _, results = shapes
    for nodeid, result in results.items():
        assert result.status == "factored", (nodeid, result.reason)
        assert result.replay_s < result.system_s
        assert result.details["replayed_calls"] == result.calls


@pytest.mark.parametrize("nodeid", list(SHAPES))
def test_broken_t_never_passes_factored(
    shapes: tuple[Path, dict[str, FactorResult]], nodeid: str
) -> None:
    root, results = shapes
    factored = results[nodeid].factored_test
    assert factored
    old, new = SHAPES[nodeid]
    edit(root, "app/logic.py", old, new)
    try:
        after = outcomes(root, nodeid, factored)
    finally:
        edit(root, "app/logic.py", new, old)
    assert after[nodeid]["outcome"] == "failed"
    assert after[factored]["outcome"] == "failed", after[factored]


def test_changed_e_makes_factored_tests_stale(shapes: tuple[Path, dict[str, FactorResult]]) -> None:
    root, results = shapes
    factored = [r.factored_test or "" for r in results.values()]
    edit(root, "app/env.py", "target.extend(self.rows)", "target.extend(list(self.rows))")
    try:
        after = outcomes(root, *factored)
        stale = stale_factored_tests(root)
    finally:
        edit(root, "app/env.py", "target.extend(list(self.rows))", "target.extend(self.rows)")
    for nodeid in factored:
        assert after[nodeid]["outcome"] == "skipped"
        assert "stale" in after[nodeid]["message"] and "app/env.py" in after[nodeid]["message"]
    assert sorted(s.original for s in stale) == sorted(results)
    assert all("app/env.py::Store.fill" in s.reason for s in stale)
    assert stale_factored_tests(root) == []


def _check(
    root: Path, test: str, factored: str, t_edit: tuple[str, str], e_edit: tuple[str, str]
) -> None:
    """After ``t_edit`` (which breaks T) the system test fails and the factored one does not
    pass; after ``e_edit`` (E changed) the factored test is skipped as stale."""
    edit(root, "app/logic.py", *t_edit)
    after = outcomes(root, test, factored)
    assert after[test]["outcome"] == "failed"
    assert after[factored]["outcome"] == "failed", after[factored]
    edit(root, "app/logic.py", t_edit[1], t_edit[0])
    edit(root, "app/env.py", *e_edit)
    stale = outcomes(root, factored)[factored]
    assert stale["outcome"] == "skipped"
    assert "stale" in stale["message"] and "app/env.py" in stale["message"]


TEST = "tests/test_logic.py::test_it"


def test_class_boundary(tmp_path: Path) -> None:
    logic = """
    from app.env import Store


    def count():
        store = Store("s")
        for row in range(6):
            store.put(row)
        return store.get_count()
    """
    test = """
    from app import logic


    def test_it():
        assert logic.count() == 6
    """
    root = make_project(tmp_path, logic, test)
    result = factor(root, TEST, "app.env.Store")
    assert result.status == "factored", result.reason
    assert result.factored_test
    t_edit = ("return store.get_count()", "return store.get_count() * 2")
    _check(
        root,
        TEST,
        result.factored_test,
        t_edit,
        ("self.size = len(self", "self.size = 0 + len(self"),
    )


def test_unserialisable_value_refuses_the_boundary(tmp_path: Path) -> None:
    logic = """
    import io
    from app import env


    def dump():
        sink = io.StringIO()
        env.write(sink, "x")
        env.compute(1)
        return sink.getvalue()
    """
    test = """
    from app import logic


    def test_it():
        assert logic.dump() == "x"
    """
    root = make_project(tmp_path, logic, test)
    result = factor(root, TEST, "app.env")
    assert result.status == "refused"
    assert "_io.StringIO does not serialise" in result.reason and "app.env.write" in result.reason
    assert not list((root / "tests").glob("test_factored__*"))


def test_unserialisable_value_beside_a_mutable_argument_refuses_the_boundary(
    tmp_path: Path,
) -> None:
    # dotenv's CliRunner tests: T hands E an object E made before the window (a click group
    # built at import) and a list; the capture must refuse, not break the test.
    logic = """
    import io
    from app import env


    def dump():
        rows = []
        env.record(io.StringIO(), rows)
        env.compute(1)
        return rows
    """
    test = """
    from app import logic


    def test_it():
        assert logic.dump() == [0]
    """
    record = "\n\ndef record(sink, rows):\n    rows.append(len(rows))\n"
    root = make_project(tmp_path, logic, test, env=ENV + record)
    result = factor(root, TEST, "app.env")
    assert result.status == "refused"
    assert result.reason.startswith("boundary refused:"), result.reason
    assert "_io.StringIO does not serialise" in result.reason and "app.env.record" in result.reason
