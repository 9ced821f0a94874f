"""Capture and replay on temporary projects, one boundary shape per test: replay gives the
system test's outcome, a changed T whose system test fails never passes factored, and a
changed E makes the factored test stale."""

from __future__ import annotations

from pathlib import Path

from tests.factoring.helpers import edit, factor, make_project, outcomes

TEST = "tests/test_logic.py::test_it"

CALLS = """
from app import env


def summarise(x):
    data = env.compute(x)
    return data["double"] + sum(data["pair"]) + data["items"][1]


def safe_fail(store):
    try:
        store.fail("k")
    except KeyError as exc:
        return "missing " + exc.args[0]
"""

CALLS_TEST = """
from app import logic, env


def test_it():
    assert logic.summarise(3) == 6 + 6 + 4
    assert logic.safe_fail(env.open_store("s")) == "missing k"
"""


def _check(root: Path, factored: str, t_edit: tuple[str, str], e_edit: tuple[str, str]) -> None:
    """The factored test passes; after ``t_edit`` (which breaks T) the system test fails and
    the factored one does not pass; after ``e_edit`` (E changed) it is skipped as stale."""
    assert outcomes(root, factored)[factored]["outcome"] == "passed"
    edit(root, "app/logic.py", *t_edit)
    after = outcomes(root, TEST, factored)
    assert after[TEST]["outcome"] == "failed"
    assert after[factored]["outcome"] == "failed", after[factored]
    edit(root, "app/logic.py", t_edit[1], t_edit[0])
    edit(root, "app/env.py", *e_edit)
    stale = outcomes(root, factored)[factored]
    assert stale["outcome"] == "skipped"
    assert "stale" in stale["message"] and "app/env.py" in stale["message"]


def test_function_calls_results_and_exceptions(tmp_path: Path) -> None:
    root = make_project(tmp_path, CALLS, CALLS_TEST)
    result = factor(root, TEST, "app.env")
    assert result.status == "factored", result.reason
    assert result.factored_test and result.replay_s < result.system_s
    _check(root, result.factored_test, ('+ data["items"][1]', '+ data["items"][0]'),
           ("return {", "return {'extra': 1, "))  # fmt: skip


OBJECTS = """
from app import env


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
"""

OBJECTS_TEST = """
from app import logic


def test_it():
    assert logic.use_store() == (2, "w", ["b", "a"])
"""


def test_objects_attributes_generators_context_managers_identity(tmp_path: Path) -> None:
    root = make_project(tmp_path, OBJECTS, OBJECTS_TEST)
    result = factor(root, TEST, "app.env")
    assert result.status == "factored", result.reason
    assert result.factored_test
    _check(root, result.factored_test, ("return store.size,", "return store.size + 1,"),
           ("self.rows.append(row)", "self.rows.insert(0, row)"))  # fmt: skip


CALLBACKS = """
from app import env


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

CALLBACKS_TEST = """
from app import logic


def test_it():
    assert logic.ordered() == (["a", "bb", "ccc"], ["ccc", "a", "bb"])
"""


def test_callbacks_and_mutated_arguments(tmp_path: Path) -> None:
    root = make_project(tmp_path, CALLBACKS, CALLBACKS_TEST)
    result = factor(root, TEST, "app.env")
    assert result.status == "factored", result.reason
    assert result.factored_test
    # A changed sort key: the callback's recorded results no longer match (divergence).
    _check(root, result.factored_test, ("return len(row)", "return -len(row)"),
           ("target.extend(self.rows)", "target.extend(list(self.rows))"))  # fmt: skip


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
    _check(root, result.factored_test, ("return store.get_count()", "return store.get_count() * 2"),
           ("self.size = len(self.rows)", "self.size = len(self.rows) + 0"))  # fmt: skip


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
