"""Comparison of the observations of both sides, ignoring what varies within a side."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

Key = tuple[str, ...]
"""A property of one test: ``("I", invocation, role, path)``, ``("P", location,
occurrence, role, path)``, ``("PN", location)`` for an execution count, ``("IN",)`` for the
number of invocations."""


@dataclass(frozen=True)
class RawDifference:
    test: str
    key: Key
    original: str
    transformed: str


def flatten(record: Mapping[str, Any]) -> dict[Key, str]:
    """The properties of one test in one run, as a flat mapping."""
    out: dict[Key, str] = {("IN",): str(record.get("invocations", 0))}
    for number, props in record.get("infection", {}).items():
        for name, value in props.items():
            role, _, path = name.partition("\t")
            out[("I", str(number), role, path)] = value
    for location, entry in record.get("propagation", {}).items():
        out[("PN", str(location))] = str(entry.get("count", 0))
        for occurrence, props in entry.get("occ", {}).items():
            for name, value in props.items():
                role, _, path = name.partition("\t")
                out[("P", str(location), str(occurrence), role, path)] = value
    return out


ABSENT = "<absent>"
"""Value of a property that no run of a side observed (e.g. an attribute never set)."""


@dataclass
class SideView:
    """What the runs of one side agree on, for one test."""

    values: dict[Key, str]  # observed in every run, with the same value
    seen: set[Key]  # observed in at least one run

    def get(self, key: Key) -> str | None:
        """The stable value, ``ABSENT`` if no run saw it, None if it varies."""
        if key in self.values:
            return self.values[key]
        return None if key in self.seen else ABSENT


def stable(runs: Iterable[Mapping[str, Any]]) -> dict[str, SideView]:
    """Per test, the properties that every run observed with the same value."""
    result: dict[str, SideView] = {}
    for run in runs:
        for test, record in run.items():
            props = flatten(record)
            view = result.get(test)
            if view is None:
                result[test] = SideView(dict(props), set(props))
                continue
            view.seen.update(props)
            for key in [k for k, v in view.values.items() if props.get(k) != v]:
                del view.values[key]
    return result


def differences(
    original: Mapping[str, SideView], transformed: Mapping[str, SideView]
) -> list[RawDifference]:
    """Properties stable on both sides (present in every run, or in none) whose values
    differ, in test order. A property that varies within either side is ignored."""
    out: list[RawDifference] = []
    for test, view in original.items():
        other = transformed.get(test)
        if other is None:
            continue
        for key in sorted(view.seen | other.seen):
            before, after = view.get(key), other.get(key)
            if before is not None and after is not None and before != after:
                out.append(RawDifference(test, key, before, after))
    return out
