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

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lsp_server.extreme.model import Transformation

from .classification_context import ClassificationContext, describe, position_of
from .compare import RawDifference, SideView
from .model import Caller, Diagnosis
from .symptoms import no_infection, no_propagation, weak_oracle

MAX_DIFFERENCES = 50
"""Differences reported per diagnosis (the first ones, in test and line order)."""


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
    context = ClassificationContext(
        root, transformation, list(tests), meta, original, transformed, lines, locations
    )
    ordered = sorted(raw, key=lambda d: (context.test_order(d.test), position_of(d, context)))
    differences = [describe(d, context) for d in ordered[:MAX_DIFFERENCES]]
    propagation = [d for d in ordered if d.key[0] in ("P", "PN")]
    infection = [d for d in ordered if d.key[0] in ("I", "IN")]
    if propagation:
        return weak_oracle(context, propagation, differences)
    if infection:
        return no_propagation(context, infection, differences, callers)
    return no_infection(context)
