"""Classification of an undetected transformation and the test change to suggest.

- weak-oracle: a value the test body observes differs (the effect reached the test, no
  assertion looked at it): suggest an assertion right after that statement, with the
  original value, on a public attribute or property when there is one.
- no-propagation: a state right after some invocation differs but nothing in the test
  body does: suggest testing the function directly, or through its nearest public callers
  when it is private.
- no-infection: nothing differs right after any invocation: the inputs cannot tell the
  original from the transformed function; suggest an input that makes it behave
  differently, starting from the test that reaches it.

A difference seen in the test body implies an infection even when the shallow observation
of the invocation missed it, so a test-body difference always means weak-oracle.
"""

from __future__ import annotations

import ast
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_server.extreme.model import Transformation

from .compare import ABSENT, Key, RawDifference, SideView
from .instrument import MAX_OCCURRENCES
from .model import Assertion, Caller, Diagnosis, Difference
from .observe import LEN

MAX_DIFFERENCES = 50
"""Differences reported per diagnosis (the first ones, in test and line order)."""


@dataclass
class _Context:
    root: Path
    transformation: Transformation
    tests: list[str]  # covering tests, in the runner's order
    meta: dict[str, Any]
    original: Mapping[str, SideView]  # stable properties per test
    transformed: Mapping[str, SideView]
    lines: dict[str, dict[str, int | None]]  # per test: invocation -> test line
    locations: dict[int, dict[str, Any]]  # location id -> Location json + "file"

    def test_order(self, test: str) -> tuple[int, str, int, int]:
        """Smallest test first (the most focused place for a new assertion or input),
        then file order; the runner's order (e.g. fastest first) says nothing useful here."""
        function = self.meta.get("tests", {}).get(test, {}).get("function")
        info = self.meta.get("functions", {}).get(function, {}) if function else {}
        size = len(info.get("locations", ())) if info else 1 << 20
        position = self.tests.index(test) if test in self.tests else len(self.tests)
        return (size, str(info.get("file", "")), int(info.get("line", 0)), position)

    def relative(self, file: str) -> str:
        try:
            return Path(file).resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return file

    def source_line(self, file: str, line: int | None) -> str:
        if line is None:
            return ""
        try:
            return Path(file).read_text(encoding="utf-8").splitlines()[line - 1].strip()
        except (OSError, IndexError):
            return ""

    def test_file(self, test: str) -> str:
        function = self.meta.get("tests", {}).get(test, {}).get("function")
        if function:
            return str(self.meta["functions"][function]["file"])
        return str(self.root / test.split("::", 1)[0])


def classify(
    root: Path,
    transformation: Transformation,
    tests: Sequence[str],
    meta: dict[str, Any],
    original: Mapping[str, SideView],
    transformed: Mapping[str, SideView],
    first_original_run: Mapping[str, Any],
    raw: Sequence[RawDifference],
    callers: Callable[[], list[Caller]],
) -> Diagnosis:
    """The diagnosis from the stable observations of both sides and their differences.

    ``callers`` is called only for no-propagation of a private function (it is slow).
    """
    locations: dict[int, dict[str, Any]] = {}
    for function in meta.get("functions", {}).values():
        for location in function["locations"]:
            locations[int(location["id"])] = {**location, "file": function["file"]}
    lines = {
        test: {str(k): v for k, v in record.get("lines", {}).items()}
        for test, record in first_original_run.items()
    }
    context = _Context(
        root, transformation, list(tests), meta, original, transformed, lines, locations
    )
    ordered = sorted(raw, key=lambda d: (context.test_order(d.test), _position(d, context)))
    differences = [_describe(d, context) for d in ordered[:MAX_DIFFERENCES]]
    propagation = [d for d in ordered if d.key[0] in ("P", "PN")]
    infection = [d for d in ordered if d.key[0] in ("I", "IN")]
    if propagation:
        return _weak_oracle(context, propagation, differences)
    if infection:
        return _no_propagation(context, infection, differences, callers)
    return _no_infection(context)


def _position(difference: RawDifference, context: _Context) -> tuple[int, int]:
    key = difference.key
    if key[0] in ("P", "PN"):
        location = context.locations.get(int(key[1]), {})
        return (int(location.get("stmt_line", 0)), int(key[1]))
    if key[0] == "I":
        return (0, int(key[1]))
    return (0, 1 << 30)


def _value(views: Mapping[str, SideView], test: str, key: Key) -> str | None:
    view = views.get(test)
    return view.get(key) if view is not None else None


def _calls(context: _Context, test: str) -> int:
    """Invocations of the function in ``test`` (the same in every original run)."""
    value = _value(context.original, test, ("IN",))
    return int(value) if value is not None and value.isdigit() else 0


# -- rendering of properties -------------------------------------------------------------
def expression(base: str, path: str) -> str:
    """The Python expression for a property ``path`` of the expression ``base``."""
    length = path.endswith(LEN)
    if length:
        path = path[: -len(LEN)]
    text = f"{base}{path}"
    return f"len({text})" if length else text


def _describe(difference: RawDifference, context: _Context) -> Difference:
    key = difference.key
    test_file = context.test_file(difference.test)
    if key[0] == "P":
        location = context.locations[int(key[1])]
        base = location["text"] if key[3] == "value" else key[3]
        return Difference(
            "propagation",
            difference.test,
            context.relative(location["file"]),
            int(location["line"]),
            expression(base, key[4]),
            difference.original,
            difference.transformed,
            int(key[2]),
        )
    if key[0] == "PN":
        location = context.locations[int(key[1])]
        return Difference(
            "propagation",
            difference.test,
            context.relative(location["file"]),
            int(location["line"]),
            f"times `{location['text']}` ran",
            difference.original,
            difference.transformed,
        )
    function = context.transformation.function.rsplit(".", 1)[-1]
    if key[0] == "IN":
        return Difference(
            "infection",
            difference.test,
            context.relative(test_file),
            None,
            f"calls of {function}",
            difference.original,
            difference.transformed,
        )
    number, role, path = key[1], key[2], key[3]
    line = context.lines.get(difference.test, {}).get(number)
    return Difference(
        "infection",
        difference.test,
        context.relative(test_file),
        line,
        expression(role, path),
        difference.original,
        difference.transformed,
        int(number),
    )


def _is_private(text: str) -> bool:
    return any(part.startswith("_") for part in text.replace("(", ".").split(".")[1:])


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
def _weak_oracle(
    context: _Context, propagation: list[RawDifference], differences: list[Difference]
) -> Diagnosis:
    candidates = [
        c for c in (_assertion_candidate(d, context) for d in propagation) if c is not None
    ]
    transformation = context.transformation
    first = _describe(propagation[0], context)
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
    raw: RawDifference, context: _Context
) -> tuple[tuple[object, ...], Difference, Assertion, str] | None:
    key = raw.key
    if key[0] != "P":
        return None
    location_id, role, path = int(key[1]), key[3], key[4]
    location = context.locations[location_id]
    if not location["assertable"]:
        return None
    count_key: Key = ("PN", key[1])
    if _value(context.original, raw.test, count_key) != _value(
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
    difference = _describe(raw, context)
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
        1 if _is_private(expr) else 0,
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
    context: _Context, test: str, location: str, role: str, path: str, expected: str
) -> bool:
    """Whether every execution of the location in ``test`` saw ``expected`` on the original
    side: in a loop, the one inserted assertion checks each of them."""
    count = _value(context.original, test, ("PN", location))
    if count is None or not count.isdigit() or not 0 < int(count) <= MAX_OCCURRENCES:
        return False
    return all(
        _value(context.original, test, ("P", location, str(n), role, path)) == expected
        for n in range(int(count))
    )


def _same_in_siblings(raw: RawDifference, context: _Context) -> bool:
    """Tests that share the test function (parametrized ones) must expect the same value
    wherever the location runs in them."""
    tests = context.meta.get("tests", {})
    function = tests.get(raw.test, {}).get("function")
    _, location, _, role, path = raw.key
    for test, info in tests.items():
        if test == raw.test or info.get("function") != function:
            continue
        if _value(context.original, test, ("PN", location)) in (None, ABSENT):
            continue  # the location does not run there
        if not _expects_everywhere(context, test, location, role, path, raw.original):
            return False
    return True


# -- no propagation ----------------------------------------------------------------------
def _no_propagation(
    context: _Context,
    infection: list[RawDifference],
    differences: list[Difference],
    callers: Callable[[], list[Caller]],
) -> Diagnosis:
    from .callgraph import is_private

    transformation = context.transformation
    raw = next((d for d in infection if d.key[0] == "I"), infection[0])
    first = _describe(raw, context)
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


def _direct_expectation(context: _Context, raw: RawDifference) -> str:
    if raw.key[0] == "I" and raw.key[2] == "result" and raw.key[3] == "":
        return f"its result (here it should be {raw.original}, not {raw.transformed})"
    if raw.key[0] == "I":
        return (
            f"its effect on `{expression(raw.key[2], raw.key[3])}` (here {raw.original}, "
            f"not {raw.transformed})"
        )
    return "its result and its effects"


def _where(context: _Context, test: str, line: int | None) -> str:
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
def _no_infection(context: _Context) -> Diagnosis:
    transformation = context.transformation
    function = transformation.function
    reached = sorted(
        (t for t in context.tests if _calls(context, t) > 0),
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
    calls = sum(_calls(context, t) for t in reached)
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
