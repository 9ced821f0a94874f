"""What one test changed in one module-level dict, set or list (``rts.filled_containers``):
the entries bound to another object, added or dropped, compared by identity before and after
the test; a dict is copied and compared only when its version tag moved."""

from __future__ import annotations

import operator
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from lsp_server.rts.dict_versions import DictSnapshot, same
from lsp_server.rts.plain_values import is_kind

WHOLE = ("<whole container>",)  # an entry standing for all of a container
_MISSING = object()
KINDS = (dict, set, list)


def changed_keys(before: dict[Any, Any], now: Mapping[Any, Any]) -> set[Any]:
    """The keys bound to another object (or added, or dropped), by identity (``same``:
    ``before`` may hold values weakly)."""
    if (
        len(before) == len(now)
        and all(map(operator.is_, before, now))
        and all(map(same, before.values(), now.values()))
    ):
        return set()
    changed = {key for key, value in now.items() if not same(before.get(key, _MISSING), value)}
    return changed | (before.keys() - now.keys())


@dataclass
class Slot:
    """A name bound to a container: in a module's or a class's namespace."""

    namespace: Mapping[str, Any]
    name: str
    value: Any
    before: Any = None  # of a set or a list: a copy of ``value`` at the start of the test
    entries: DictSnapshot | None = None  # of a dict: its entries at the start of the test
    # Of a dict: which entries hold a dict, set or list (looked for again only when an
    # entry changed), and their sizes at the start of the test (a registry's lists grow).
    holding: tuple[list[Any], list[Any]] | None = None
    sizes: list[int] | None = None

    def start(self) -> None:
        value = self.value
        if not isinstance(value, dict):
            self.before, self.entries = _copy(value), None
            return
        if self.entries is None or self.entries.mapping is not value:
            self.entries = DictSnapshot(value, weak=True)
        self.entries.take()
        if self.holding is None:
            held = [(k, v) for k, v in value.items() if is_kind(v, KINDS)]
            self.holding = ([k for k, _ in held], [v for _, v in held])
        self.sizes = list(map(len, self.holding[1]))


def _copy(value: Any) -> Any:
    return set(value) if isinstance(value, set) else list(value)


def _grown(slot: Slot) -> set[Any]:
    """The entries of a dict's slot holding a container whose size changed (one rebound to
    another object is among the changed entries)."""
    keys, values = slot.holding or ([], [])
    sizes = list(map(len, values))
    if sizes == slot.sizes:
        return set()
    return {
        key for key, now, then in zip(keys, sizes, slot.sizes or (), strict=True) if now != then
    }


def presence_changed(slot: Slot, changed: set[Any]) -> set[Any]:
    """Of the ``changed`` entries of ``slot``, those the test added or dropped."""
    before = slot.entries.entries if slot.entries is not None else slot.before
    if not isinstance(before, dict) or WHOLE in changed:
        return changed
    now = slot.namespace.get(slot.name, _MISSING)
    return {key for key in changed if (key in before) != (key in now)}


def changed_entries(slot: Slot) -> set[Any]:
    """The entries of ``slot`` that the test changed (``WHOLE``: the container itself)."""
    now = slot.namespace.get(slot.name, _MISSING)
    if now is not slot.value:
        slot.holding = None
        return {WHOLE}
    if slot.entries is not None:
        grown = _grown(slot)
        if slot.entries.unchanged():
            return grown
        changed = changed_keys(slot.entries.entries, now)
        if changed:
            slot.holding = None  # entries rebound: which hold containers, looked for again
        return changed | grown
    before = slot.before
    if isinstance(before, set):
        if len(before) == len(now) and before == now:
            return set()
        return (now - before) | (before - now)
    unchanged = len(before) == len(now) and all(map(operator.is_, before, now))
    return set() if unchanged else {WHOLE}


def start_keys(slot: Slot) -> Collection[Any] | None:
    """The keys of a dict's or a set's ``slot`` when the test started (None for a list)."""
    if slot.entries is not None:
        return slot.entries.entries.keys()
    return slot.before if isinstance(slot.before, set) else None
