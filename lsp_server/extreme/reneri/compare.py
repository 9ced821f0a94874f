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


def stable(runs: Iterable[Mapping[str, Any]]) -> dict[str, dict[Key, str]]:
    """Per test, the properties that every run observed with the same value."""
    result: dict[str, dict[Key, str]] = {}
    seen_runs: dict[str, int] = {}
    for run in runs:
        for test, record in run.items():
            props = flatten(record)
            count = seen_runs.get(test, 0)
            seen_runs[test] = count + 1
            if count == 0:
                result[test] = props
                continue
            current = result[test]
            for key in [k for k, v in current.items() if props.get(k) != v]:
                del current[key]
    return result


def differences(
    original: Mapping[str, Mapping[Key, str]], transformed: Mapping[str, Mapping[Key, str]]
) -> list[RawDifference]:
    """Properties stable on both sides whose values differ, in test order."""
    out: list[RawDifference] = []
    for test, props in original.items():
        other = transformed.get(test)
        if other is None:
            continue
        for key, value in props.items():
            if key in other and other[key] != value:
                out.append(RawDifference(test, key, value, other[key]))
    return out
