"""Which entries of a module-level dict, set or list a code object reads, from its bytecode.

``rts.filled_containers`` makes a test that read an entry an earlier test put in such a
container depend on what ran in that earlier test. Reading *an* entry is what a cache hit
does: ``k in _CACHE``, ``_CACHE[k]``, ``_CACHE.get(k)``; the key is known when its value is a
constant, a variable or a tuple of those, loaded right where the container is used. Such a
*keyed* read is recorded per key as it runs (``rts.keyed_reads``: sys.monitoring INSTRUCTION
events, 3.12+, on the instruction that completes the key: the variables then still hold the
values just pushed). ``len(d)``, ``d.keys()`` and a loop over a dict or set read the
container's *size*: which entries are there, not their values (``rts.container_sizes``).
Every other use of the container's name (passing it on, an alias, ``.items()``, a key
computed in place) counts as reading every entry, as does every keyed or size read where
events are not available (3.10/3.11). Where the bytecode tells which object such a use loads
(``self._mapping``, a global), the load itself is a site: it reads every entry of that object
only, and only when it runs (jinja's ``LRUCache.__setitem__`` evicts with ``del
self._mapping[self._popleft()]``; by name, every template-cache store read every entry of
the module-level lexer cache's ``_mapping`` too). A pure write (``_CACHE[k] = v``, ``.add``,
``.append``, ``.update``...) reads nothing: what it changed is found by comparing the
container before and after the test. Where a test last stored into the container is
watched too (the instruction after each ``d[k] = v``), and every other way the code may
change it is told (``changes``; an alias or any unknown use is one).

A read that only asks whether an entry is there (``k in d``, ``__contains__``, ``del
d[k]``, ``.remove(k)``, ``d.pop(k, None)`` whose value is dropped) is a *presence* read:
the entry's value does not reach it, so it depends only on the tests that added or dropped
the entry (``rts.filled_containers``).

The analysis knows the instruction shapes of 3.12; on other versions an unknown shape is
a read of every entry, never a missed one.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from types import CodeType, FunctionType
from typing import Any

from lsp_server.rts.identity import identity

# Methods whose first argument is the key of the entry they read.
KEYED_METHODS = frozenset(
    {"get", "setdefault", "pop", "remove", "__contains__", "__getitem__", "__delitem__"}
)
# Of those, the methods that see only whether the entry is there, not its value.
PRESENCE_METHODS = frozenset({"remove", "__contains__", "__delitem__"})
# Of those, the methods that may also add or drop the entry.
CHANGING_METHODS = frozenset({"setdefault", "pop", "remove", "__delitem__"})
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
SIZE = ("<size>",)
"""The key of a read of a container's size (``len(d)``): it sees which entries are there."""
EVERY = ("<every>",)
"""The key of a use that may read any entry of the one container it loads (``dict(self._d)``,
``del self._d[self._oldest()]``): told by the load itself, which object it is."""
# A whole read's key at its site: the site is the container's own load.
EVERY_SITE: Key = ("every", None)
# A size read's key: ("size", what reads it): "len" (``len(d)``), "keys" (``d.keys()``),
# "__iter__" (``for k in d``), "__delitem__" (``del d[<a key computed in place>]``: it sees
# only whether that entry is there, which only what added or dropped entries decides);
# each counts only where it runs the builtin's code.
SIZE_READERS = ("len", "keys", "__iter__", "__delitem__")
# How many instructions a key computed in place for ``del`` may take.
_COMPUTED_KEY_SPAN = 24
# The key of ``del d[<a key computed in place>]``, at the container's load.
DELETE_COMPUTED: Key = ("size", "__delitem__")
# A store's site: container name and shape, by the offset of the instruction after it.
Store = tuple[str, Key | None]


@dataclass(frozen=True)
class _Store:
    """A ``d[k] = v`` whose STORE_SUBSCR is ``code[at]``."""

    at: int


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
    # ``d[k] = v`` of a container named here, by the offset of the instruction after it;
    # the names it changes any other way (a method: ``.pop``, ``.clear``...; ``del d[k]``).
    stores: dict[int, Store] = field(default_factory=dict)
    changes: frozenset[str] = frozenset()


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


def _rest_of_call(code: list[dis.Instruction], start: int, key: Key) -> int | None:
    """The index of the CALL ending the method call whose key ends just before ``start``,
    where it takes the key as its first argument and at most one more, computed in
    straight-line code that leaves the key where it is and does not rebind its variables."""
    names = _key_names(key)
    depth = 1  # the key, above the method and its object
    for at in range(start, len(code)):
        instruction = code[at]
        name = instruction.opname
        if name == "CALL" and instruction.arg == depth and depth <= 2:
            return at
        if (
            _is_jump(instruction)
            or name in _UNSAFE_BETWEEN
            or (name in _STORES and instruction.argval in names)
        ):
            return None
        depth += _effect(instruction)
        if depth < 2:  # the second argument's code reached down into the key
            return None
    return None


def _is_container(instruction: dis.Instruction, names: Collection[str]) -> bool:
    if instruction.argval not in names:
        return False
    loads = instruction.opname in _CONTAINER_LOADS or instruction.opname == "LOAD_ATTR"
    return loads and not _loads_callee(instruction)


def _size_reader(code: list[dis.Instruction], at: int) -> str | None:
    """What reads the size (the keys) of the container ``code[at]`` loads: "len" as the one
    argument of ``len``, "keys" for ``.keys()``, "__iter__" for a loop over it; None."""
    after = code[at + 1]
    if after.opname == "GET_ITER":
        return "__iter__"
    if _loads_callee(after) and after.argval == "keys":
        call = code[at + 2] if at + 2 < len(code) else None
        if call is None or call.opname != "CALL" or call.arg != 0:
            return None
        view = code[at + 3] if at + 3 < len(code) else None
        # The view's ``mapping`` reaches the values.
        return None if view is not None and view.argval == "mapping" else "keys"
    return "len" if after.opname == "CALL" and after.arg == 1 and _is_len(code, at) else None


def _is_len(code: list[dis.Instruction], at: int) -> bool:
    """Whether what is called on the container ``code[at]`` loads is the global ``len``."""
    callee = at - 1
    if code[at].opname == "LOAD_ATTR":
        owner = _simple_key(code, at - 1)
        if owner is None or owner[0] != at - 1:
            return False
        callee = at - 2
    found = code[callee] if callee >= 0 else None
    return found is not None and found.opname == "LOAD_GLOBAL" and found.argval == "len"


def _read_at(code: list[dis.Instruction], at: int) -> tuple[int, Key, bool] | _Store | bool | None:
    """The read of the container loaded by ``code[at]``: (index of the instruction
    completing its key, the key, whether it sees only the entry's presence); a ``_Store``
    for ``d[k] = v``; True for another pure write; None for any other use."""
    after = code[at + 1] if at + 1 < len(code) else None
    if after is None:
        return None
    reader = _size_reader(code, at)
    if reader is not None:
        return at, ("size", reader), True
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
        call = _rest_of_call(code, at + 3, found[1])
        if call is None:
            return None
        # ``d.pop(k, None)`` whose value is dropped sees only whether the entry was there.
        dropped = after.argval == "pop" and code[call + 1].opname == "POP_TOP"
        return at + 2, found[1], after.argval in PRESENCE_METHODS or dropped
    # A subscript: the key, then BINARY_SUBSCR (a read), DELETE_SUBSCR (reads presence) or
    # STORE_SUBSCR (a pure write). The key may be a tuple: find where it ends.
    for end in range(at + 1, min(at + 1 + 2 * 8, len(code) - 1)):
        found = _simple_key(code, end)
        if found is None or found[0] != at + 1:
            continue
        consumer = code[end + 1].opname
        if consumer == "STORE_SUBSCR":
            return _Store(end + 1)
        if consumer in {"BINARY_SUBSCR", "DELETE_SUBSCR"}:
            return end, found[1], consumer == "DELETE_SUBSCR"
    return (at, DELETE_COMPUTED, True) if _deletes_computed(code, at) else None


def _deletes_computed(code: list[dis.Instruction], at: int) -> bool:
    """Whether the container ``code[at]`` loads is the object of a ``del d[key]`` whose
    key is computed right after it, in straight-line code leaving the container in place."""
    depth = 0  # above the container
    for index in range(at + 1, min(at + 1 + _COMPUTED_KEY_SPAN, len(code) - 1)):
        instruction = code[index]
        if _is_jump(instruction) or instruction.opname in _UNSAFE_BETWEEN:
            return False
        depth += _effect(instruction)
        if depth < 1:  # reached down into the container
            return False
        if depth == 1 and code[index + 1].opname == "DELETE_SUBSCR":
            return True
    return False


def _container_shape(code: list[dis.Instruction], at: int) -> Key | None:
    """How to find, in the frame, the container ``code[at]`` loads (None: not told)."""
    instruction = code[at]
    if instruction.opname == "LOAD_GLOBAL":
        return ("global", instruction.argval)
    if instruction.opname == "LOAD_NAME":
        return ("name", instruction.argval)
    if instruction.is_jump_target:  # ``(a if c else b)._d``: the owner may be either
        return None
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
    stores: dict[int, Store] = {}
    changes: set[str] = set()
    wholes: dict[int, Site] = {}
    for at, instruction in enumerate(instructions):
        if instruction.opname not in _CONTAINER_LOADS and instruction.opname != "LOAD_ATTR":
            continue
        if not _is_container(instruction, names):
            if instruction.argval in names and instruction.opname != "LOAD_ATTR":
                everything.add(instruction.argval)  # called, or loaded some other way
            continue
        name = instruction.argval
        read = _read_at(instructions, at)
        if isinstance(read, _Store):
            after = instructions[read.at + 1].offset
            stores[after] = (name, _container_shape(instructions, at))
            continue
        if read is None or isinstance(read, bool):
            changes.add(name)  # a write, or any other use: it may change what is there
            shape = _container_shape(instructions, at)
            if read is None and shape is None:
                everything.add(name)
            elif read is None:  # any entry of the object the load finds, told as it runs
                wholes[instruction.offset] = (name, EVERY_SITE, shape, False)
            continue
        if _changes(instructions, at, read[0]):
            changes.add(name)
        if read[1][0] == "const":
            constant.add((name, read[1][1], read[2]))
        else:
            shape = _container_shape(instructions, at)
            sites[instructions[read[0]].offset] = (name, read[1], shape, read[2])
    for offset, site in wholes.items():
        if offset in sites:  # the load is also another read's key: every entry, by name
            everything.add(site[0])
        else:
            sites[offset] = site
    if not everything and not constant and not sites and not stores and not changes:
        return None
    return ContainerReads(
        frozenset(everything), frozenset(constant), sites, stores, frozenset(changes)
    )


def _changes(code: list[dis.Instruction], at: int, end: int) -> bool:
    """Whether the keyed read of the container ``code[at]`` loads, its key ending at
    ``code[end]``, may also add or drop the entry (``.pop(k)``, ``del d[k]``). A ``del``
    by a computed key (``DELETE_COMPUTED``) is told as it runs (``rts.keyed_reads``)."""
    method = code[at + 1]
    if _loads_callee(method) and method.argval in CHANGING_METHODS:
        return True
    return end + 1 < len(code) and code[end + 1].opname == "DELETE_SUBSCR"


def defaults_held(function: object, containers: Mapping[int, str]) -> Iterator[tuple[int, str]]:
    """(identity of its code, name) of each of ``containers`` (by identity) ``function``
    holds as a default value: it reads every entry of those whenever it runs."""
    if type(function) is not FunctionType:  # asks no hook of a proxy: ``rts.plain_values``
        return
    code = function.__code__
    defaults = function.__defaults__ or ()
    keyword = function.__kwdefaults__ or {}
    for value in (*defaults, *keyword.values()):
        name = containers.get(identity(value))
        if name is not None:
            yield identity(code), name
