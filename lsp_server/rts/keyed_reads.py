"""The keyed reads and the stores of module-level containers, recorded as they run (3.12+).

``rts.container_reads`` finds, in a code object's bytecode, the instructions completing the
key of each keyed read (``_CACHE.get(k)``, ``k in _CACHE``), each ``len(_CACHE)`` and the
instruction after each ``_CACHE[k] = v``. A ``sys.monitoring`` tool of its own sees
INSTRUCTION events on those offsets only, in the code objects handed to ``watch``: a read
records its key, a store records where the test had got to (``ran_so_far``: each set holding
what it ran so far, with its size then; ``rts.container_sizes``), the last one per container.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from inspect import getattr_static
from sys import _getframe
from types import CodeType, FrameType
from typing import Any

from lsp_server.rts.container_reads import (
    DELETE_COMPUTED,
    EVENTS_PER_SITE,
    EVERY,
    SIZE,
    ContainerReads,
    Key,
    Site,
    Store,
)
from lsp_server.rts.identity import identity
from lsp_server.rts.tracing import RanSoFar

_MON: Any = getattr(sys, "monitoring", None)
_BUILTIN_LEN = len
# A size read is one only where it runs the builtin containers' own code: a subclass's
# ``__len__``, ``keys`` or ``__iter__`` may read values.
_PLAIN_READERS: dict[str, tuple[object, ...]] = {
    "len": (dict.__len__, set.__len__, list.__len__),
    "keys": (dict.keys,),
    "__iter__": (dict.__iter__, set.__iter__),
    "__delitem__": (dict.__delitem__, list.__delitem__),
}


def _nothing_told() -> RanSoFar | None:
    return None


_MISSING = object()


def _container(shape: Key | None, frame: FrameType) -> Any:
    """The container ``shape`` finds in ``frame`` right now; ``_MISSING`` when not told.
    An attribute is looked up statically (``inspect.getattr_static``): no property,
    ``__getattr__`` or ``__getattribute__`` of the project runs from here."""
    if shape is None:
        return _MISSING
    if shape[0] == "attr":
        owner = key_value(shape[1], frame)
        return _MISSING if owner is _MISSING else getattr_static(owner, shape[2], _MISSING)
    return key_value(shape, frame)


def container_id(shape: Key | None, frame: FrameType) -> int:
    """The id of the container ``shape`` finds in ``frame`` right now; 0 when not told."""
    found = _container(shape, frame)
    return identity(found) if isinstance(found, (dict, set, list)) else 0


def read_value(key: Key, shape: Key | None, frame: FrameType) -> Any:
    """The key a read at a site sees right now: ``SIZE`` for a size read that runs the
    builtin's code; ``_MISSING`` when it cannot be told."""
    if key[0] == "every":
        return EVERY
    if key[0] != "size":
        return key_value(key, frame)
    reader = key[1]
    if reader == "len" and key_value(("global", "len"), frame) is not _BUILTIN_LEN:
        return _MISSING
    method = getattr(type(_container(shape, frame)), reader if reader != "len" else "__len__", None)
    return SIZE if method in _PLAIN_READERS[reader] else _MISSING


def key_value(key: Key, frame: FrameType) -> Any:
    """The value of ``key`` in ``frame`` right now; ``_MISSING`` when it cannot be told."""
    kind, value = key
    if kind == "const":
        return value
    if kind == "tuple":
        parts = [key_value(part, frame) for part in value]
        return _MISSING if any(part is _MISSING for part in parts) else tuple(parts)
    if kind in ("local", "name"):
        found = frame.f_locals.get(value, _MISSING)
        if kind == "local" or found is not _MISSING:
            return found
    found = frame.f_globals.get(value, _MISSING)
    if found is _MISSING:
        builtins = frame.f_builtins
        found = builtins.get(value, _MISSING)
    return found


@dataclass
class KeyedReads:
    """The keyed reads that ran, per test: (container name, container id or 0, key,
    presence only), and the names of containers a site read too often to keep (every entry
    counts); where the test was at its last store into each container (by id), and the
    names of containers stored into where that could not be told."""

    ran_so_far: Callable[[], RanSoFar | None] = _nothing_told
    sites: dict[int, dict[int, Site]] = field(default_factory=dict)
    stores: dict[int, dict[int, Store]] = field(default_factory=dict)
    codes: list[CodeType] = field(default_factory=list)  # watched, kept alive
    keys: set[tuple[str, int, Any, bool]] = field(default_factory=set)
    everything: set[str] = field(default_factory=set)
    stored: dict[int, RanSoFar] = field(default_factory=dict)
    unsure: set[str] = field(default_factory=set)
    _counts: dict[tuple[int, int], int] = field(default_factory=dict)
    _tool: int | None = None

    @property
    def available(self) -> bool:
        return _MON is not None

    def watch(self, code: CodeType, reads: ContainerReads) -> None:
        """Record the keyed reads and the stores of ``code`` from now on (3.12+). Watched
        already, its sites become those of ``reads``: analysed again once more containers
        were filled, it reads those by key too (the sites it had would miss them)."""
        if not (reads.sites or reads.stores) or _MON is None:
            return
        if identity(code) in self.sites:
            self.sites[identity(code)] = reads.sites
            self.stores[identity(code)] = reads.stores
            return
        if self._tool is None and not self._start():
            return
        self.sites[identity(code)] = reads.sites
        self.stores[identity(code)] = reads.stores
        self.codes.append(code)
        _MON.set_local_events(self._tool, code, _MON.events.INSTRUCTION)

    def watched(self, code: CodeType) -> bool:
        return identity(code) in self.sites

    def take(self) -> tuple[set[tuple[str, int, Any, bool]], set[str]]:
        """The keys and the wholly read names since the last call."""
        keys, everything = self.keys, self.everything
        self.keys, self.everything = set(), set()
        self._counts.clear()
        return keys, everything

    def take_stores(self) -> tuple[dict[int, RanSoFar], set[str]]:
        """Where the test was at its last store into each container, by id, and the names
        stored into where that was not told, since the last call."""
        stored, unsure = self.stored, self.unsure
        self.stored, self.unsure = {}, set()
        return stored, unsure

    def _start(self) -> bool:
        mon = _MON
        for tool in (4, 3, 2, 1, 0):
            if mon.get_tool(tool) is None:
                mon.use_tool_id(tool, "reks-container-reads")
                self._tool = tool
                mon.register_callback(tool, mon.events.INSTRUCTION, self._event())
                return True
        return False

    def _event(self) -> Callable[[CodeType, int], Any]:
        getframe, disable, sites, counts = _getframe, _MON.DISABLE, self.sites, self._counts
        stores = self.stores

        def on_instruction(code: CodeType, offset: int) -> Any:
            site = sites.get(identity(code), {}).get(offset)
            if site is None:
                store = stores.get(identity(code), {}).get(offset)
                if store is None:
                    return disable
                return self._on_store(store, getframe(1), (identity(code), offset))
            where = (identity(code), offset)
            count = counts[where] = counts.get(where, 0) + 1
            name, key, shape, presence = site
            frame = getframe(1)
            value = read_value(key, shape, frame) if count <= EVENTS_PER_SITE else _MISSING
            try:
                if value is _MISSING:
                    raise TypeError
                self.keys.add((name, container_id(shape, frame), value, presence))
            except TypeError:  # unhashable, or not told: every entry
                self.everything.add(name)
                value = _MISSING
            if key == DELETE_COMPUTED:  # it drops an entry: not a watched store
                self.unsure.add(name)
            return disable if value is _MISSING else None

        return on_instruction

    def _on_store(self, store: Store, frame: FrameType, where: tuple[int, int]) -> Any:
        """Keep where the test is, right after a store into a container (past the cap on
        events, or where the container or the sets are not told: not kept)."""
        count = self._counts[where] = self._counts.get(where, 0) + 1
        name, shape = store
        found = container_id(shape, frame) if count <= EVENTS_PER_SITE else 0
        so_far = self.ran_so_far() if found else None
        if so_far is None:
            self.unsure.add(name)
            return _MON.DISABLE
        self.stored[found] = so_far
        return None

    def stop(self) -> None:
        if self._tool is None:
            return
        for code in self.codes:
            _MON.set_local_events(self._tool, code, 0)
        _MON.register_callback(self._tool, _MON.events.INSTRUCTION, None)
        _MON.free_tool_id(self._tool)
        self._tool = None
        self.sites.clear()
        self.stores.clear()
        self.codes.clear()
