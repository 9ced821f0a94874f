"""Which calls replay expects next: the change language of section 8 of the paper.

A transcript in strict order would break on any harmless change to T. Replay relaxes it in
three measured ways:

- *State sets* (8.2): each E object belongs to a state set; calls are ordered only within a
  set, so calls on independent objects may be reordered. An object joins the set of the object
  whose method made it and of the E objects passed to its constructor; two objects made by the
  same module-level call with the same arguments (two connections to one database file) share
  a set. Module-level calls form one set.
- *Read-only calls* (8.3): attribute reads, comparison/size/text operators and accessor methods
  (``get*``, ``is*``, ``has*``, ...) whose every recorded call with the same arguments gave
  the same result may be removed (skipped without advancing) or added (answered from the
  nearest recorded one).
- *Setter clumps* (8.4): consecutive attribute writes and ``set*``/``add*`` calls returning
  None may happen in any order among themselves.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from lsp_server.factoring.proxies import READ_ONLY_OPERATORS

_ACCESSOR = re.compile(r"^(get|is|has)(_|[A-Z]|$)")
_ACCESSOR_NAMES = frozenset({"keys", "values", "items", "exists", "is_file", "is_dir", "fileno"})
_SETTER = re.compile(r"^(set|add)(_|[A-Z])")
_MODULE_SET = 0

Comparator = Callable[[dict[str, Any]], bool]
"""Whether a recorded event is the call replay is being asked to answer."""


def refs_in(data: Any) -> list[int]:
    """Every E reference (``{"$ref": n}``) inside a transcript value, in order. It never
    visits a scalar: replay's setup walks the arguments of every event that made an object
    (diskcache's sqlite3 transcripts: seven thousand cursors)."""
    kind = type(data)
    if kind is dict:
        ref = data.get("$ref")
        if ref is not None:  # a reference holds nothing else
            return [int(ref)]
        data = data.values()
    elif kind is not list:
        return []
    found: list[int] = []
    for item in data:
        kind = type(item)
        if kind is dict or kind is list:
            found += refs_in(item)
    return found


def _refs_of(event: dict[str, Any], first: str, second: str) -> list[int]:
    """The references in two fields of an event (a missing field holds none)."""
    return refs_in(event.get(first)) + refs_in(event.get(second))


def describe(target: dict[str, Any]) -> str:
    """A call target as people write it: ``sqlite3.connect`` or ``#2.execute``."""
    if "target" in target:
        return str(target["target"])
    return f"#{target['on']}.{target['name']}"


def is_read_only_name(name: str | None) -> bool:
    if not name:
        return False
    return name in READ_ONLY_OPERATORS or name in _ACCESSOR_NAMES or bool(_ACCESSOR.match(name))


def _signature(event: dict[str, Any]) -> str:
    return json.dumps(
        [
            event.get("target"),
            event.get("on"),
            event.get("name"),
            event.get("args"),
            event.get("kwargs"),
        ],
        sort_keys=True,
    )


def _outcome(event: dict[str, Any]) -> str:
    return json.dumps([event.get("result"), event.get("raise")], sort_keys=True)


class Schedule:
    """The recorded events of one transcript, consumed as replay answers calls."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events
        self.consumed = [False] * len(events)
        self._signatures: dict[int, str] = {}
        self._set_of_ref = self._state_sets()
        self.read_only = self._read_only_flags()
        self.setter: list[bool] = []
        self.calls: list[tuple[str, Any, Any, Any]] = []
        """Each event's kind and target, as replay compares them."""
        self.plain: list[bool] = []
        """Events answered by their result alone (no callbacks, changes to redo, reads)."""
        self._queues: dict[int, list[int]] = {}
        self._heads: dict[int, int] = {}
        # One pass, no call per event: replay's setup (diskcache: ten thousand events).
        set_of_ref, queues = self._set_of_ref, self._queues
        for index, event in enumerate(events):
            kind, on, name = event["kind"], event.get("on"), event.get("name")
            self.calls.append((kind, on, name, event.get("target")))
            self.setter.append(kind == "set" or (name is not None and self._is_setter(event)))
            self.plain.append(
                "callbacks" not in event
                and "mutated" not in event
                and "fs" not in event
                and "value" not in event
            )
            state = _MODULE_SET if on is None else set_of_ref.get(int(on), int(on) + 1)
            queue = queues.get(state)
            if queue is None:
                queues[state] = [index]
            else:
                queue.append(index)

    def _state_sets(self) -> dict[int, int]:
        parent: dict[int, int] = {}

        def find(ref: int) -> int:
            up = parent.get(ref)
            while up is not None and up != ref:
                ref, up = up, parent.get(up)
            return ref

        made_by: dict[str, int] = {}
        seen: set[int] = set()
        for index, event in enumerate(self.events):
            result = event.get("result")
            if type(result) is dict and "$ref" in result:  # the usual: one object made
                made = [int(result["$ref"])] if result["$ref"] not in seen else []
            elif type(result) is dict or type(result) is list or "value" in event:
                made = [r for r in _refs_of(event, "result", "value") if r not in seen]
            else:
                continue  # plain data, no object made: nothing to join
            if not made:
                continue
            seen.update(made)
            joined = _refs_of(event, "args", "kwargs")
            if "on" in event:
                joined.insert(0, int(event["on"]))
            for ref in made:
                parent.setdefault(ref, ref)
                for other in joined:
                    parent[find(ref)] = find(other)
                if "target" in event:
                    key = self._signature(index)
                    if key in made_by:
                        parent[find(ref)] = find(made_by[key])
                    made_by.setdefault(key, ref)
        return {ref: find(ref) + 1 for ref in parent}  # 0 is the module-level set

    def set_of(self, event: dict[str, Any]) -> int:
        if "on" in event:
            return self._set_of_ref.get(int(event["on"]), int(event["on"]) + 1)
        return _MODULE_SET

    def set_of_ref(self, ref: int | None) -> int:
        return _MODULE_SET if ref is None else self._set_of_ref.get(ref, ref + 1)

    def _signature(self, index: int) -> str:
        """The call of event ``index`` as text, made once (replay's setup cost: requests'
        transcripts hold about a thousand events)."""
        signature = self._signatures.get(index)
        if signature is None:
            signature = self._signatures[index] = _signature(self.events[index])
        return signature

    def _read_only_flags(self) -> list[bool]:
        # Only calls with an accessor's name can be read-only: only theirs are compared.
        named = [
            i
            for i, e in enumerate(self.events)
            if e["kind"] == "call" and is_read_only_name(e.get("name"))
        ]
        outcomes: dict[str, set[str]] = {}
        for index in named:
            outcomes.setdefault(self._signature(index), set()).add(_outcome(self.events[index]))
        flags = [e["kind"] == "get" and "raise" not in e for e in self.events]
        for index in named:
            event = self.events[index]
            flags[index] = (
                not event.get("callbacks")
                and not event.get("mutated")
                and not event.get("fs")  # its files must be redone
                and len(outcomes[self._signature(index)]) == 1
            )
        return flags

    @staticmethod
    def _is_setter(event: dict[str, Any]) -> bool:
        if event["kind"] == "set":
            return True
        name = event.get("name") or ""
        return (
            event["kind"] == "call"
            and bool(_SETTER.match(name))
            and event.get("result") is None
            and "raise" not in event
            and not event.get("callbacks")
        )

    def match(self, state_set: int, is_setter: bool, same: Comparator) -> int | None:
        """The index of the recorded event that answers the call, consumed; None when the
        next events of its state set allow no match."""
        skipped: list[int] = []
        queue = self._queues.get(state_set, [])
        for position in range(self._head(state_set), len(queue)):  # no slice: no copy
            index = queue[position]
            if self.consumed[index]:
                continue
            if same(self.events[index]):
                self.consumed[index] = True
                for removed in skipped:
                    self.consumed[removed] = True  # read-only calls T no longer makes
                return index
            if self.read_only[index]:
                skipped.append(index)
            elif not (is_setter and self.setter[index]):
                return None
        return None

    def head(self, state_set: int) -> int | None:
        """The index of the first unconsumed event of a state set (None: none left): the
        event a T that uses E as recorded asks for next."""
        queue = self._queues.get(state_set)
        if queue is None:
            return None
        position = self._head(state_set)
        return queue[position] if position < len(queue) else None

    def _head(self, state_set: int) -> int:
        """Position of the first unconsumed event of a state set (kept, so that replay
        stays linear in the transcript's length)."""
        queue = self._queues.get(state_set, [])
        position = self._heads.get(state_set, 0)
        while position < len(queue) and self.consumed[queue[position]]:
            position += 1
        self._heads[state_set] = position
        return position

    def nearest(self, state_set: int, same: Comparator) -> int | None:
        """A recorded read-only event equal to the call, nearest before the state set's
        position (else after it): the answer to a read-only call T added."""
        queue = self._queues.get(state_set, [])
        position = self._head(state_set)
        before = [idx for idx in queue[:position] if self.read_only[idx] and same(self.events[idx])]
        if before:
            return before[-1]
        after = (idx for idx in queue[position:] if self.read_only[idx] and same(self.events[idx]))
        return next(after, None)

    def expected(self, state_set: int) -> dict[str, Any] | None:
        """The next recorded event of a state set that replay cannot skip."""
        queue = self._queues.get(state_set, [])
        for position in range(self._head(state_set), len(queue)):
            index = queue[position]
            if not self.consumed[index] and not self.read_only[index]:
                return self.events[index]
        return None

    def missing(self) -> list[dict[str, Any]]:
        """Recorded events T never asked for that a changed T may not drop."""
        return [
            e for i, e in enumerate(self.events) if not self.consumed[i] and not self.read_only[i]
        ]
