"""Parametrized tests: each case is factored on its own, with its parameters (direct and
through a fixture) written into the factored test; a value with no literal spelling is a
clear refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.factoring import factor_tests
from lsp_server.factoring.emit import parametrize_decorator
from tests.factoring.helpers import edit, make_project, outcomes

LOGIC = """
from app import env


def summarise(x, scale):
    data = env.compute(x)
    return (data["double"] + data["items"][1]) * scale
"""

TESTS = """
import pytest

from app import logic


@pytest.fixture
def scale(request):
    return request.param


@pytest.mark.parametrize("scale", [1, 10], indirect=True)
@pytest.mark.parametrize("x, label", [(1, "one"), (2, "two")])
def test_summarise(x, label, scale):
    assert logic.summarise(x, scale) == (3 * x + 1) * scale
    assert label in ("one", "two")


@pytest.mark.parametrize("marker", [object()])
def test_opaque(marker):
    assert logic.summarise(1, 1) == 4
"""

CASES = [
    "tests/test_logic.py::test_summarise[1-one-1]",
    "tests/test_logic.py::test_summarise[2-two-10]",
]


def test_each_case_is_factored_and_catches_a_broken_t(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, TESTS)
    results = factor_tests(root, CASES, ["app.env"], keep_slower=True)
    factored = []
    for result in results:
        assert result.status == "factored", result.reason
        assert result.factored_test and result.factored_test.endswith(
            f"[{result.test.split('[')[1]}"
        )
        factored.append(result.factored_test)
    assert len({f.split("::")[0] for f in factored}) == 2  # one file per case
    passed = outcomes(root, *factored)
    assert all(passed[f]["outcome"] == "passed" for f in factored), passed
    edit(root, "app/logic.py", "* scale", "* (scale + 1)")
    after = outcomes(root, *CASES, *factored)
    for nodeid in [*CASES, *factored]:
        assert after[nodeid]["outcome"] == "failed", (nodeid, after[nodeid])


def test_a_parameter_without_a_literal_spelling_is_refused(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, TESTS)
    [result] = factor_tests(root, ["tests/test_logic.py::test_opaque[marker0]"], ["app.env"])
    assert result.status == "refused"
    assert "parameter 'marker'" in result.reason and "literal" in result.reason, result.reason


def _emitted_case(params: dict[str, str | None]) -> tuple[str, list]:
    """The argnames and argvalues of the parametrize mark a factored test is given."""
    shape = {"parametrized": True, "params": params, "case": "c"}
    [decorator] = parametrize_decorator(shape)
    mark = eval(decorator.removeprefix("@"), {"pytest": pytest})  # the text reks emits
    return mark.args[0], mark.args[1]


def test_a_case_of_one_parameter_is_that_value_not_a_tuple_of_it() -> None:
    # requests' test_none_timeout[None] got timeout=(None,): its replay took another path.
    assert _emitted_case({"timeout": "None"}) == ("timeout", [None])
    assert _emitted_case({"x": "1", "label": "'one'"}) == ("x, label", [(1, "one")])
