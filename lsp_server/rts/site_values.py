"""Where the arguments of a lookup call site (``rts.runtime_lookups``) come from in the
bytecode (``argument_sources``), and what they hold in the calling frame as the call runs."""

from __future__ import annotations

import builtins
import collections
import dis
import sys
from collections.abc import Iterable
from types import CodeType, FrameType, MethodDescriptorType, ModuleType

from lsp_server.rts.reads import EVERY_NAME

Source = tuple[str, object]
"""Where a call's argument comes from: ("local" | "global" | "name", its name),
("const", its value), ("list", the sources of the items of a list or tuple display),
("attribute", (a fast local's name, an attribute's name)), or ``MADE_FUNCTION``."""

MADE_FUNCTION: Source = ("made", None)
"""A function made by the call's own code (a lambda, a nested ``def``) from a constant code
object, with at most constant defaults and a closure: making it runs no code, and it is no
string (``value_at`` tells no value)."""

_LOCAL_OPS = frozenset(["LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_CLASSDEREF"])


def _pushes(ins: dis.Instruction) -> list[Source] | None:
    """The sources of what ``ins`` pushes when it is a plain load, else None."""
    if ins.opname in _LOCAL_OPS:
        return [("local", ins.argval)]
    if ins.opname == "LOAD_FAST_LOAD_FAST":  # 3.13+: two locals
        return [("local", name) for name in ins.argval]
    if ins.opname == "LOAD_CONST":
        return [("const", ins.argval)]
    if ins.opname == "LOAD_GLOBAL" and not (sys.version_info >= (3, 11) and ins.arg & 1):
        return [("global", ins.argval)]
    if ins.opname == "LOAD_NAME":
        return [("name", ins.argval)]
    return None


def argument_sources(
    instructions: list[dis.Instruction], call: int, count: int
) -> tuple[Source | None, ...]:
    """The sources of the ``count`` arguments pushed before ``instructions[call]``: each
    from the end that a plain load pushed, None for the others (computed). An attribute
    load of a plain load (``getattr(self, name, self.default)``) is stepped over as one
    computed argument; it may run code (a property) that rebinds a global or a cell, so
    the arguments pushed before it are told only when their value no code can rebind (a
    constant, a fast local: read at the call, it is still what was pushed)."""
    found: list[Source | None] = []
    code_may_run = False
    at = call - 1
    while at >= 0:
        plain = _pushes(instructions[at])
        pushed: list[Source | None] | None = None if plain is None else list(plain)
        if pushed is not None and code_may_run and not _stable(instructions[at]):
            break
        if pushed is None:
            display = _display(instructions, at)
            base = _attribute_chain_base(instructions, at) if display is None else None
            made = _made_function(instructions, at)
            if display is not None and not code_may_run:
                pushed, at = [display[0]], display[1]
            elif made is not None:
                pushed, at = [MADE_FUNCTION], made
            elif base is not None:
                pushed, at, code_may_run = [_attribute_of(instructions, base, at)], base, True
            else:
                break
        if len(found) + len(pushed) > count:
            break
        found[:0] = pushed
        at -= 1
    return (None,) * (count - len(found)) + tuple(found)


_STABLE_OPS = frozenset(["LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_LOAD_FAST", "LOAD_CONST"])
"""Plain loads whose value no code run between the push and the call can change (a global
or a cell can be rebound by a property's code; a fast local or a constant cannot)."""


def _stable(ins: dis.Instruction) -> bool:
    return ins.opname in _STABLE_OPS


def _attribute_chain_base(instructions: list[dis.Instruction], at: int) -> int | None:
    """Where the plain load of one value starts that the attribute loads ending at
    ``instructions[at]`` (``obj.a.b``, no method load) read from; None if they do not."""
    first = at
    while first >= 0 and _loads_attribute(instructions[first]):
        first -= 1
    if first == at or first < 0:
        return None
    pushed = _pushes(instructions[first])
    return first if pushed is not None and len(pushed) == 1 else None


def _attribute_of(instructions: list[dis.Instruction], base: int, at: int) -> Source | None:
    """``local.name`` (one attribute of a fast local: no code can rebind the local before
    the call, ``value_at`` reads it again there); None for a longer chain or another base."""
    local = instructions[base]
    if at != base + 1 or local.opname not in ("LOAD_FAST", "LOAD_FAST_CHECK"):
        return None
    return ("attribute", (local.argval, instructions[at].argval))


def _loads_attribute(ins: dis.Instruction) -> bool:
    """A plain attribute load: one value replaces one (3.12+ flags a method load in
    ``arg``'s low bit, which pushes two)."""
    if ins.opname != "LOAD_ATTR" or ins.is_jump_target:
        return False
    return sys.version_info < (3, 12) or not ins.arg & 1


def _display(instructions: list[dis.Instruction], at: int) -> tuple[Source, int] | None:
    """A list or tuple display of plain loads built at ``instructions[at]`` (``[obj]``,
    ``__import__``'s fromlist): its source and where its first item is pushed."""
    ins = instructions[at]
    if ins.opname not in ("BUILD_LIST", "BUILD_TUPLE") or not ins.arg:
        return None
    items: list[Source] = []
    first = at
    while len(items) < ins.arg and first > 0:
        first -= 1
        pushed = _pushes(instructions[first])
        if pushed is None:
            return None
        items[:0] = pushed
    if len(items) != ins.arg:
        return None
    return ("list", tuple(items)), first


_CLOSURE = 0x08
_DEFAULTS = 0x01
_CELL_LOADS = frozenset(["LOAD_CLOSURE", "LOAD_FAST", "LOAD_DEREF"])  # 3.13: LOAD_FAST


def _made_function(instructions: list[dis.Instruction], at: int) -> int | None:
    """Where the making of a function ending at ``instructions[at]`` starts (its first
    instruction), when it is a ``MADE_FUNCTION``; else None. 3.12 flags the extras in
    ``MAKE_FUNCTION``'s argument, 3.13 sets each by a ``SET_FUNCTION_ATTRIBUTE`` after it;
    both push the closure last, the defaults first."""
    flags = 0
    while at >= 0 and instructions[at].opname == "SET_FUNCTION_ATTRIBUTE":
        flags |= instructions[at].arg or 0
        at -= 1
    if at < 1 or instructions[at].opname != "MAKE_FUNCTION":
        return None
    flags |= instructions[at].arg or 0
    code = instructions[at - 1]
    if flags & ~(_CLOSURE | _DEFAULTS) or code.opname != "LOAD_CONST":
        return None  # annotations, keyword defaults: built by code of their own
    if not isinstance(code.argval, CodeType):
        return None
    at -= 2
    if flags & _CLOSURE:
        cells = instructions[at] if at >= 0 else None
        if cells is None or cells.opname != "BUILD_TUPLE" or at < cells.argval:
            return None
        loads = instructions[at - cells.argval : at]
        if not all(ins.opname in _CELL_LOADS for ins in loads):
            return None
        at -= cells.argval + 1
    if flags & _DEFAULTS:
        if at < 0 or instructions[at].opname != "LOAD_CONST":
            return None  # computed defaults: code runs as the function is made
        at -= 1
    return at + 1


def record_vars(frame: FrameType, sources: tuple[Source | None, ...], names: set[str]) -> bool:
    """``vars(obj)``: an instance's ``__dict__`` holds what code that ran stored there (a
    dependency already), no binding; a module's or a class's (or the caller's namespace,
    with no argument) may hold any binding: every name."""
    value = None if len(sources) != 1 or sources[0] is None else value_at(frame, sources[0])
    if value is None or isinstance(value, (ModuleType, type)):
        names.add(EVERY_NAME)
        return False
    return True


def record_method_call(
    frame: FrameType, sources: tuple[Source | None, ...], names: set[str]
) -> bool:
    """A lookup method's call: every argument a plain load, the strings among them the
    names read (the instance and any other object name nothing)."""
    for source in sources:
        if source == MADE_FUNCTION:
            continue  # a function: no name
        value = None if source is None else value_at(frame, source)
        if source is None or source[0] == "list" or (source[0] != "const" and value is None):
            names.add(EVERY_NAME)  # computed, a display (no name), or not found
            return False
        if isinstance(value, str):
            names.add(str.__str__(value))
    return True


_PLAIN = frozenset(["const", "local", "global", "name", "attribute", MADE_FUNCTION[0]])
"""Sources of plain loads, a local's attribute and made functions (not a site's marker:
``member_lookups.MEMBERS_CALL``)."""


def record_handed_names(
    frame: FrameType, sources: tuple[Source | None, ...], names: set[str]
) -> bool:
    """A call spelled like a lookup function that calls a library's callable instead
    (``monkeypatch.setattr(module, "name", value)``; only 3.12's CALL event names the
    callable): like a lookup method's, the strings it is handed are the names it reads,
    each part of a dotted one too (``monkeypatch.setattr("m.f", v)``). Handed no string
    (``listing.vars(module)``, ``dir`` under another name), it may list every name."""
    handed: set[str] = set()
    plain = all(s is not None and s[0] in _PLAIN for s in sources)
    going_on = plain and record_method_call(frame, sources, handed)
    if not handed:
        names.add(EVERY_NAME)
        return False
    names.update(handed, parts_of(handed))
    return going_on


_CONTAINERS = (list, dict, set, bytearray, collections.deque)
"""Builtin types whose methods a plain attribute load finds, running no code: their
instances have no ``__dict__``, and a builtin type's attributes cannot be set."""


def container_method(owner: object, name: str) -> object:
    """``owner.name`` when ``owner`` is exactly a builtin container and ``name`` one of its
    type's methods (a bound builtin method: no string); None otherwise (not told)."""
    kind = type(owner)
    if kind not in _CONTAINERS or not isinstance(vars(kind).get(name), MethodDescriptorType):
        return None
    return getattr(owner, name)


def parts_of(dotted: Iterable[str]) -> set[str]:
    """Each part of each dotted name."""
    return {part for name in dotted for part in name.split(".")}


def value_at(frame: FrameType, source: Source) -> object:
    """The value ``source`` holds in ``frame`` (None when not found)."""
    kind, name = source
    if kind == "const":
        return name
    if source == MADE_FUNCTION:
        return None  # not kept by the frame
    if kind == "attribute":
        assert isinstance(name, tuple)
        return container_method(frame.f_locals.get(name[0], None), name[1])
    if kind == "list":
        assert isinstance(name, tuple)
        return [value_at(frame, item) for item in name]
    assert isinstance(name, str)
    if kind == "local":
        return frame.f_locals.get(name, None)
    if kind == "name" and name in frame.f_locals:
        return frame.f_locals[name]
    if name in frame.f_globals:
        return frame.f_globals[name]
    return getattr(builtins, name, None)
