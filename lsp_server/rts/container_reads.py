"""Which entries of a module-level dict, set or list a code object reads, from its bytecode.

``rts.filled_containers`` makes a test that read an entry an earlier test put in such a
container depend on what ran in that earlier test. Reading *an* entry is what a cache hit
does: ``k in _CACHE``, ``_CACHE[k]``, ``_CACHE.get(k)``; the key is known when its value is a
constant, a variable or a tuple of those, loaded right where the container is used. Such a
*keyed* read is recorded per key as it runs (``KeyedReads``: sys.monitoring INSTRUCTION
events, 3.12+, on the instruction that completes the key: the variables then still hold the
values just pushed). Every other use of the container's name (iterating it, ``len``, passing
it on, an alias, a key computed in place) counts as reading every entry, as does every keyed
read where events are not available (3.10/3.11). A pure write (``_CACHE[k] = v``,
``.add``, ``.append``, ``.update``...) reads nothing: what it changed is found by comparing
the container before and after the test.

A read that only asks whether an entry is there (``k in d``, ``__contains__``, ``del
d[k]``, ``.remove(k)``) is a *presence* read: the entry's value does not reach it, so it
depends only on the tests that added or dropped the entry (``rts.filled_containers``).

The analysis knows the instruction shapes of 3.12; on other versions an unknown shape is
a read of every entry, never a missed one.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from inspect import getattr_static
from types import CodeType, FrameType
from typing import Any

from lsp_server.rts.identity import identity

_MON: Any = getattr(sys, "monitoring", None)

# Methods whose first argument is the key of the entry they read.
KEYED_METHODS = frozenset(
    {"get", "setdefault", "pop", "remove", "__contains__", "__getitem__", "__delitem__"}
)
# Of those, the methods that see only whether the entry is there, not its value.
PRESENCE_METHODS = frozenset({"remove", "__contains__", "__delitem__"})
# Methods that only write (what they change is found by comparing): they read no entry.
WRITE_METHODS = frozenset(
    {"add", "append", "appendleft", "update", "clear", "extend", "insert", "discard", "__setitem__"}
)
_CONTAINER_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})
# The low bit of a load's argument says it loads a callee: LOAD_GLOBAL's on 3.11+ (it pushes
# a NULL too), LOAD_ATTR's on 3.12+ (a method; 3.10/3.11 have LOAD_METHOD). Elsewhere it is
# the name's index.
_CALLEE_BIT = {
    "LOAD_GLOBAL": sys.version_info >= (3, 11),
    "LOAD_ATTR": sys.version_info >= (3, 12),
}
_VARIABLES = frozenset({"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_NAME"})
_STORES = frozenset({"STORE_FAST", "DELETE_FAST", "STORE_DEREF", "DELETE_DEREF", "STORE_NAME"})
_UNSAFE_BETWEEN = frozenset({"SWAP", "COPY"})
_EMPTY_DISPLAYS = frozenset({"BUILD_LIST", "BUILD_MAP", "BUILD_SET"})

# ("const", value) | ("local" / "global" / "name", variable) | ("tuple", keys);
# a container's is also ("attr", owner, name)
Key = tuple[Any, ...]
# A keyed read's site: container name, key, container shape, presence only.
Site = tuple[str, Key, Key | None, bool]
# Per-test cap on the events of one site: past it, its container's every entry counts.
EVENTS_PER_SITE = 64


@dataclass(frozen=True)
class ContainerReads:
    """What one code object reads of the containers named ``names`` (when it ran).

    ``everything``: the names it uses in a way that may read any entry. ``constant``: the
    (name, key, presence only) triples it reads with constant keys. ``sites``: by the offset
    of the instruction completing a variable key, the container's name, the key's shape,
    the container's (``Key``: a variable, or ``("attr", owner, name)``; None when not told)
    and whether the read sees only the entry's presence."""

    everything: frozenset[str]
    constant: frozenset[tuple[str, Any, bool]]
    sites: dict[int, Site] = field(default_factory=dict)


def _loads_callee(instruction: dis.Instruction) -> bool:
    """Whether ``instruction`` loads something to be called (as far as it tells)."""
    if instruction.opname == "LOAD_METHOD":
        return True
    return _CALLEE_BIT.get(instruction.opname, False) and bool((instruction.arg or 0) & 1)


def _is_jump(instruction: dis.Instruction) -> bool:
    name = instruction.opname
    return "JUMP" in name or name in {"FOR_ITER", "SEND", "RETURN_VALUE", "RETURN_CONST"}


def _effect(instruction: dis.Instruction) -> int:
    arg = instruction.arg if instruction.opcode >= dis.HAVE_ARGUMENT else None
    return dis.stack_effect(instruction.opcode, arg, jump=False)


def _simple_key(code: list[dis.Instruction], end: int) -> tuple[int, Key] | None:
    """The key whose last instruction is ``code[end]``: (its first index, its shape)."""
    if end < 0:
        return None
    instruction = code[end]
    name = instruction.opname
    if name == "LOAD_CONST":
        return end, ("const", instruction.argval)
    if name in _VARIABLES:
        return end, ("local" if name != "LOAD_NAME" else "name", instruction.argval)
    if name == "LOAD_GLOBAL" and not _loads_callee(instruction):
        return end, ("global", instruction.argval)
    if name == "BUILD_TUPLE":
        parts: list[Key] = []
        at = end - 1
        for _ in range(instruction.arg or 0):
            found = _simple_key(code, at)
            if found is None or found[1][0] == "tuple":
                return None
            at = found[0] - 1
            parts.append(found[1])
        return at + 1, ("tuple", tuple(reversed(parts)))
    return None


def _key_names(key: Key) -> set[str]:
    kind, value = key
    if kind == "tuple":
        return set().union(*(_key_names(part) for part in value))
    return {value} if kind == "local" else set()


def _rest_of_call(code: list[dis.Instruction], start: int, key: Key) -> bool:
    """Whether the method call whose key ends just before ``start`` ends at a CALL that
    takes the key as its first argument and at most one more, computed in straight-line
    code that leaves the key where it is and does not rebind its variables."""
    names = _key_names(key)
    depth = 1  # the key, above the method and its object
    for instruction in code[start:]:
        name = instruction.opname
        if name == "CALL" and instruction.arg == depth and depth <= 2:
            return True
        if (
            _is_jump(instruction)
            or name in _UNSAFE_BETWEEN
            or (name in _STORES and instruction.argval in names)
        ):
            return False
        depth += _effect(instruction)
        if depth < 2:  # the second argument's code reached down into the key
            return False
    return False


def _is_container(instruction: dis.Instruction, names: Collection[str]) -> bool:
    if instruction.argval not in names:
        return False
    loads = instruction.opname in _CONTAINER_LOADS or instruction.opname == "LOAD_ATTR"
    return loads and not _loads_callee(instruction)


def _read_at(code: list[dis.Instruction], at: int) -> tuple[int, Key, bool] | bool | None:
    """The read of the container loaded by ``code[at]``: (index of the instruction
    completing its key, the key, whether it sees only the entry's presence); True for a
    pure write; None for any other use."""
    after = code[at + 1] if at + 1 < len(code) else None
    if after is None:
        return None
    if after.opname == "CONTAINS_OP":
        before = at - 1 if code[at].opname != "LOAD_ATTR" else at - 2
        if code[at].opname == "LOAD_ATTR" and _simple_key(code, at - 1) is None:
            return None  # the object the container is an attribute of: one load
        found = _simple_key(code, before)
        return (before, found[1], True) if found is not None else None
    if after.opname in ("LOAD_ATTR", "LOAD_METHOD") and _loads_callee(after):
        if after.argval in WRITE_METHODS:
            return True
        if after.argval not in KEYED_METHODS:
            return None
        found = _simple_key(code, at + 2)
        if found is None or found[0] != at + 2:
            return None
        if not _rest_of_call(code, at + 3, found[1]):
            return None
        return at + 2, found[1], after.argval in PRESENCE_METHODS
    # A subscript: the key, then BINARY_SUBSCR (a read), DELETE_SUBSCR (reads presence) or
    # STORE_SUBSCR (a pure write). The key may be a tuple: find where it ends.
    for end in range(at + 1, min(at + 1 + 2 * 8, len(code) - 1)):
        found = _simple_key(code, end)
        if found is None or found[0] != at + 1:
            continue
        consumer = code[end + 1].opname
        if consumer == "STORE_SUBSCR":
            return True
        if consumer in {"BINARY_SUBSCR", "DELETE_SUBSCR"}:
            return end, found[1], consumer == "DELETE_SUBSCR"
    return None


def _container_shape(code: list[dis.Instruction], at: int) -> Key | None:
    """How to find, in the frame, the container ``code[at]`` loads (None: not told)."""
    instruction = code[at]
    if instruction.opname == "LOAD_GLOBAL":
        return ("global", instruction.argval)
    if instruction.opname == "LOAD_NAME":
        return ("name", instruction.argval)
    owner = _simple_key(code, at - 1)
    if owner is None or owner[0] != at - 1 or owner[1][0] == "const":
        return None
    return ("attr", owner[1], instruction.argval)


def container_reads(code: CodeType, names: Collection[str]) -> ContainerReads | None:
    """What ``code`` reads of the containers named ``names``; None when it names none."""
    if names is None or not any(name in names for name in code.co_names):
        return None
    instructions = list(dis.get_instructions(code))
    everything: set[str] = set()
    constant: set[tuple[str, Any, bool]] = set()
    sites: dict[int, Site] = {}
    for at, instruction in enumerate(instructions):
        if instruction.opname not in _CONTAINER_LOADS and instruction.opname != "LOAD_ATTR":
            continue
        if not _is_container(instruction, names):
            if instruction.argval in names and instruction.opname != "LOAD_ATTR":
                everything.add(instruction.argval)  # called, or loaded some other way
            continue
        name = instruction.argval
        read = _read_at(instructions, at)
        if read is True:
            continue
        if read is None or read is False:
            everything.add(name)
        elif read[1][0] == "const":
            constant.add((name, read[1][1], read[2]))
        else:
            shape = _container_shape(instructions, at)
            sites[instructions[read[0]].offset] = (name, read[1], shape, read[2])
    if not everything and not constant and not sites:
        return None
    return ContainerReads(frozenset(everything), frozenset(constant), sites)


_MISSING = object()


def container_id(shape: Key | None, frame: FrameType) -> int:
    """The id of the container ``shape`` finds in ``frame`` right now; 0 when not told.
    An attribute is looked up statically (``inspect.getattr_static``): no property,
    ``__getattr__`` or ``__getattribute__`` of the project runs from here."""
    if shape is None:
        return 0
    if shape[0] == "attr":
        owner = key_value(shape[1], frame)
        found = _MISSING if owner is _MISSING else getattr_static(owner, shape[2], _MISSING)
    else:
        found = key_value(shape, frame)
    return identity(found) if isinstance(found, (dict, set, list)) else 0


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
    counts)."""

    sites: dict[int, dict[int, Site]] = field(default_factory=dict)
    codes: list[CodeType] = field(default_factory=list)  # watched, kept alive
    keys: set[tuple[str, int, Any, bool]] = field(default_factory=set)
    everything: set[str] = field(default_factory=set)
    _counts: dict[tuple[int, int], int] = field(default_factory=dict)
    _tool: int | None = None

    @property
    def available(self) -> bool:
        return _MON is not None

    def watch(self, code: CodeType, reads: ContainerReads) -> None:
        """Record the keyed reads of ``code`` from now on (3.12+)."""
        if not reads.sites or _MON is None or identity(code) in self.sites:
            return
        if self._tool is None and not self._start():
            return
        self.sites[identity(code)] = reads.sites
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
        getframe, disable, sites, counts = sys._getframe, _MON.DISABLE, self.sites, self._counts

        def on_instruction(code: CodeType, offset: int) -> Any:
            site = sites.get(identity(code), {}).get(offset)
            if site is None:
                return disable
            where = (identity(code), offset)
            count = counts[where] = counts.get(where, 0) + 1
            name, key, shape, presence = site
            frame = getframe(1)
            value = key_value(key, frame) if count <= EVENTS_PER_SITE else _MISSING
            try:
                if value is _MISSING:
                    raise TypeError
                self.keys.add((name, container_id(shape, frame), value, presence))
            except TypeError:  # unhashable, or not told: every entry
                self.everything.add(name)
                return disable
            return None

        return on_instruction

    def stop(self) -> None:
        if self._tool is None:
            return
        for code in self.codes:
            _MON.set_local_events(self._tool, code, 0)
        _MON.register_callback(self._tool, _MON.events.INSTRUCTION, None)
        _MON.free_tool_id(self._tool)
        self._tool = None
        self.sites.clear()
        self.codes.clear()
