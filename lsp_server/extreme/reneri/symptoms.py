"""The three symptoms (weak-oracle, no-propagation, no-infection) and the test change
each suggests: an assertion with its expected value, a direct test, a new input."""

from __future__ import annotations

import ast
import tempfile
from collections.abc import Callable

from .classification_context import (
    ClassificationContext,
    call_count,
    describe,
    expression,
    is_private_name,
    value_of,
)
from .compare import ABSENT, Key, RawDifference
from .instrument import MAX_OCCURRENCES
from .model import Assertion, Caller, Diagnosis, Difference
from .observe import LEN


def _literal_assertion(expr: str, original: str, transformed: str) -> str | None:
    if original == "None":
        return f"assert {expr} is None"
    if original in ("True", "False"):
        return f"assert {expr} is {original}"
    if original.startswith("<enum "):
        member = original[len("<enum ") : -1].rsplit(".", 1)[-1]
        return f"assert {expr}.name == {member!r}"
    if original.startswith("<type "):
        if transformed == "None":
            return f"assert {expr} is not None"
        name = original[len("<type ") : -1].rsplit(".", 1)[-1]
        return f"assert type({expr}).__name__ == {name!r}"
    if original.startswith("<"):
        return None  # long strings, nan, inf, text with addresses: no plain literal
    if "reks-reneri-" in original or tempfile.gettempdir() in original:
        return None  # a temporary path of this run: another run has another one
    try:
        ast.literal_eval(original)
    except (ValueError, SyntaxError):
        return None
    return f"assert {expr} == {original}"


# -- weak oracle -----------------------------------------------------------------------


def weak_oracle(
    context: ClassificationContext, propagation: list[RawDifference], differences: list[Difference]
) -> Diagnosis:
    candidates = [
        c for c in (_assertion_candidate(d, context) for d in propagation) if c is not None
    ]
    transformation = context.transformation
    first = describe(propagation[0], context)
    if not candidates:
        suggestion = (
            f"The tests see the effect of `{transformation.body}` in "
            f"`{transformation.function}` but never check it: in "
            f"{_test_name(first.test)} ({first.path}:{first.line}) `{first.expression}` is "
            f"{first.original} with the original code and {first.transformed} with the "
            "transformation. Assert on it after that line."
        )
        return Diagnosis(
            transformation,
            "weak-oracle",
            suggestion,
            differences,
            test=first.test,
            test_line=first.line,
        )
    candidates.sort(key=lambda c: c[0])
    _, difference, assertion, statement = candidates[0]
    suggestion = (
        f"The tests see the effect of `{transformation.body}` in `{transformation.function}` "
        f"but never check it: in {_test_name(difference.test)}, after line "
        f"{assertion.line} (`{statement}`), `{assertion.expression}` is {difference.original} "
        f"with the original code and {difference.transformed} with the transformation. "
        f"Add `{assertion.text.strip()}` after line {assertion.line} of {assertion.path}."
    )
    return Diagnosis(
        transformation,
        "weak-oracle",
        suggestion,
        differences,
        test=difference.test,
        test_line=assertion.line,
        assertion=assertion,
    )


def _assertion_candidate(
    raw: RawDifference, context: ClassificationContext
) -> tuple[tuple[object, ...], Difference, Assertion, str] | None:
    key = raw.key
    if key[0] != "P":
        return None
    location_id, role, path = int(key[1]), key[3], key[4]
    location = context.locations[location_id]
    if not location["assertable"]:
        return None
    count_key: Key = ("PN", key[1])
    if value_of(context.original, raw.test, count_key) != value_of(
        context.transformed, raw.test, count_key
    ):
        return None  # run a varying number of times: one assertion cannot say it
    if not _expects_everywhere(context, raw.test, key[1], role, path, raw.original):
        return None
    text = location["text"]
    if role == "value":
        if not location["in_assert"] and not _is_pure(text):
            return None  # repeating a call that is not a query could change the test
        base = text
    else:
        base = role
    expr = expression(base, path)
    statement = _literal_assertion(expr, raw.original, raw.transformed)
    if statement is None:
        return None
    if not _same_in_siblings(raw, context):
        return None
    difference = describe(raw, context)
    file = location["file"]
    assertion = Assertion(
        context.relative(file),
        int(location["stmt_end_line"]),
        f"{location['indent']}{statement}",
        expr,
        raw.original,
    )
    rank = (
        *context.test_order(raw.test),
        int(location["stmt_line"]),
        1 if is_private_name(expr) else 0,
        0 if role != "value" else 1,  # the object the test holds, before a re-evaluation
        path.count("."),
        1 if path.endswith(LEN) else 0,
    )
    return rank, difference, assertion, context.source_line(file, int(location["stmt_line"]))


def _is_pure(text: str) -> bool:
    """A name or attribute chain: reading it again has no effect worth worrying about."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return False
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _expects_everywhere(
    context: ClassificationContext, test: str, location: str, role: str, path: str, expected: str
) -> bool:
    """Whether every execution of the location in ``test`` saw ``expected`` on the original
    side: in a loop, the one inserted assertion checks each of them."""
    count = value_of(context.original, test, ("PN", location))
    if count is None or not count.isdigit() or not 0 < int(count) <= MAX_OCCURRENCES:
        return False
    return all(
        value_of(context.original, test, ("P", location, str(n), role, path)) == expected
        for n in range(int(count))
    )


def _same_in_siblings(raw: RawDifference, context: ClassificationContext) -> bool:
    """Tests that share the test function (parametrized ones) must expect the same value
    wherever the location runs in them."""
    tests = context.meta.get("tests", {})
    function = tests.get(raw.test, {}).get("function")
    _, location, _, role, path = raw.key
    for test, info in tests.items():
        if test == raw.test or info.get("function") != function:
            continue
        if value_of(context.original, test, ("PN", location)) in (None, ABSENT):
            continue  # the location does not run there
        if not _expects_everywhere(context, test, location, role, path, raw.original):
            return False
    return True


# -- no propagation ----------------------------------------------------------------------


def no_propagation(
    context: ClassificationContext,
    infection: list[RawDifference],
    differences: list[Difference],
    callers: Callable[[], list[Caller]],
) -> Diagnosis:
    from .callgraph import is_private

    transformation = context.transformation
    raw = next((d for d in infection if d.key[0] == "I"), infection[0])
    first = describe(raw, context)
    where = _where(context, first.test, first.line)
    if raw.key[0] == "I":
        call = f"call {int(raw.key[1]) + 1} of `{transformation.function}`"
        seen = (
            f"{call} gives `{first.expression}` = {first.original} with the original code and "
            f"{first.transformed} with `{transformation.body}`"
        )
    else:
        seen = (
            f"`{transformation.function}` is called {first.original} times with the original "
            f"code and {first.transformed} times with `{transformation.body}`"
        )
    text = (
        f"In {where}, {seen}, but nothing the test observes changes: the difference is "
        "masked before it reaches the test."
    )
    found: list[Caller] = []
    if is_private(transformation.path, transformation.function):
        found = callers()
        if found:
            names = ", ".join(f"`{c.qualname}` ({c.path}:{c.line})" for c in found[:3])
            text += (
                f" `{transformation.function}` is private: test it through its nearest "
                f"public caller{'s' if len(found) > 1 else ''} {names}, with inputs that "
                "reach it, and assert on what they return or change."
            )
        else:
            text += (
                f" `{transformation.function}` is private and no public function reaches it "
                "in the static call graph: test it directly."
            )
    else:
        expectation = _direct_expectation(context, raw)
        text += (
            f" Test `{transformation.function}` directly: call it in a test and assert "
            f"{expectation}."
        )
    return Diagnosis(
        transformation,
        "no-propagation",
        text,
        differences,
        test=first.test,
        test_line=first.line,
        callers=found,
    )


def _direct_expectation(context: ClassificationContext, raw: RawDifference) -> str:
    if raw.key[0] == "I" and raw.key[2] == "result" and raw.key[3] == "":
        return f"its result (here it should be {raw.original}, not {raw.transformed})"
    if raw.key[0] == "I":
        return (
            f"its effect on `{expression(raw.key[2], raw.key[3])}` (here {raw.original}, "
            f"not {raw.transformed})"
        )
    return "its result and its effects"


def _where(context: ClassificationContext, test: str, line: int | None) -> str:
    name = _test_name(test)
    if line is None:
        return f"{name} (in its fixtures)"
    source = context.source_line(context.test_file(test), line)
    return f"{name} (line {line}: `{source}`)" if source else f"{name} (line {line})"


def _test_name(test: str) -> str:
    """``test_x[param]`` from a node id (parameters may contain ``::`` themselves)."""
    base, bracket, parameters = test.partition("[")
    return f"`{base.rsplit('::', 1)[-1]}{bracket}{parameters}`"


# -- no infection ------------------------------------------------------------------------


def no_infection(context: ClassificationContext) -> Diagnosis:
    transformation = context.transformation
    function = transformation.function
    reached = sorted(
        (t for t in context.tests if call_count(context, t) > 0),
        key=context.test_order,
    )
    if not reached:
        return Diagnosis(
            transformation,
            "no-infection",
            f"No covering test called `{function}` in these runs: add a test that reaches "
            "it with an input for which the transformed function would behave differently.",
            [],
        )
    test = reached[0]
    line = context.lines.get(test, {}).get("0")
    where = _where(context, test, line)
    body = transformation.body.strip()
    constant = body[len("return") :].strip() if body.startswith("return") else None
    calls = sum(call_count(context, t) for t in reached)
    calls_text = "the one call" if calls == 1 else f"all {calls} calls"
    if constant is not None:
        seen = (
            f"in {calls_text} from the covering tests "
            f"`{function}` already behaved as `{body}` (returning {constant or 'None'} "
            "and changing nothing else)"
        )
        goal = _hint(function, constant)
    else:
        seen = (
            f"in {calls_text} from the covering tests, "
            f"removing the body of `{function}` changed neither its result, nor its receiver, "
            "nor its arguments"
        )
        goal = "an input for which it has an observable effect, and assert on that effect"
    text = (
        f"The tests cannot tell `{body}` from the real `{function}`: {seen}. Starting from "
        f"{where}, add a test with {goal}."
    )
    return Diagnosis(transformation, "no-infection", text, [], test=test, test_line=line)


def _hint(function: str, constant: str) -> str:
    """What input to look for, given the constant the function already returned."""
    name = function.rsplit(".", 1)[-1]
    if name == "__eq__" and constant in ("True", "False"):
        if constant == "True":
            return "an unequal pair (two objects that are not equal), asserting `a != b`"
        return "an equal pair of distinct objects, asserting `a == b`"
    if name == "__ne__" and constant in ("True", "False"):
        if constant == "True":
            return "an equal pair of distinct objects, asserting `not (a != b)`"
        return "an unequal pair, asserting `a != b`"
    if constant in ("True", "False"):
        other = "False" if constant == "True" else "True"
        return f"inputs for which `{name}` returns {other}, asserting that result"
    if constant in ("None", ""):
        return f"inputs for which `{name}` returns a value, asserting that value"
    return (
        f"inputs for which `{name}` returns something other than {constant}, asserting that result"
    )
