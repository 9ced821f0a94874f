"""The keys of a window's code set that a session-long table does not hold yet.

``codes.keys() - table.keys()`` reads naturally but costs the size of ``table``: a keys
view on the right is neither a set nor a dict to CPython's set difference, so each of its
keys is taken out of the result in turn. Tables that grow with every code object the
session ran (thousands on jinja) made that a per-test cost growing with the session.
``set(codes).difference(table)`` asks the table about each key of ``codes`` instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def new_keys(codes: Mapping[int, object], table: dict[int, Any]) -> set[int]:
    """The keys of ``codes`` that ``table`` lacks, at a cost of the size of ``codes`` (a
    dict's membership is asked in C)."""
    return set(codes).difference(table)
