"""What an object holds, to tell whether code changed it between two moments.

``state_of`` walks the objects reachable from a value through containers (dicts, lists,
tuples, sets), instances' ``__dict__`` and bound methods' ``__self__``, and lists each one
by identity with its size: two equal states mean no entry, item or attribute of any of them
was rebound, added or dropped (an object replaced by an equal copy counts as a change, the
safe side; ``shape=True`` tells equal copies apart from other changes). Values nothing can
change once made (``cached_calls.frozen``), functions, classes and modules end the walk:
their code and namespaces are what tests depend on through what they ran and read. So do the
objects the caller names (bound in a project module's or class's namespace: module state of
their own, such as sqlparse's token types, which grow a subtype on every new attribute
read). An object with state the walk cannot see (no ``__dict__`` and no plain container: a C
object, ``__slots__``) or a graph past ``STATE_OBJECTS`` objects has no state to compare:
None.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Set
from typing import Any

from lsp_server.rts.cached_calls import frozen
from lsp_server.rts.identity import identity

STATE_OBJECTS = 20_000
"""Objects walked at most: sqlparse's lexer (its regular expressions and nine keyword
dicts) is about 2,000; the walk runs once per test for each object watched."""

_CONTAINERS = (list, tuple, set, frozenset)
_END, _AGAIN, _ENTERED = 0, 1, 2  # what follows in a shape: an identity, an order, a type
_ENDS = (types.FunctionType, type, types.ModuleType)


def state_of(
    value: object, named: Set[int] = frozenset(), shape: bool = False
) -> tuple[int, ...] | None:
    """The identities and sizes of the objects reachable from ``value``, in the walk's
    order; None where the walk cannot tell (see the module's docstring). The walk does not
    enter the objects ``named`` lists by identity (other than ``value``).

    With ``shape`` the objects the walk enters are listed by type and order of first visit
    instead (a later visit by that order): equal shapes mean the same graph of containers
    and instances, holding the very same values where the walk stops (an equal copy built
    anew compares equal; ``lazy_builds`` asks whether a rebuild left the object as built)."""
    out: list[int] = []
    seen: dict[int, int] = {}  # identity -> order of first visit
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        key = identity(item)
        if key in seen:
            out += (_AGAIN, seen[key]) if shape else (key,)
            continue
        ended = frozen(item) or isinstance(item, _ENDS) or (key in named and item is not value)
        if not shape:
            out.append(key)
        else:
            out += (_END, key) if ended else (_ENTERED, identity(type(item)))
        if ended:
            continue
        seen[key] = len(seen)
        if len(seen) > STATE_OBJECTS:
            return None
        if isinstance(item, types.MethodType):
            stack += (item.__func__, item.__self__)
            continue
        if isinstance(item, types.BuiltinMethodType):
            # It holds its object (``pattern.match``), or a builtin function its module; its
            # name is made anew on each read: interned, the same string each time.
            stack += (sys.intern(item.__name__), item.__self__)
            continue
        if not _walk_into(item, out, stack):
            return None
    return tuple(out)


def _walk_into(item: Any, out: list[int], stack: list[Any]) -> bool:
    """Push what ``item`` holds (its size into ``out``); false for state the walk cannot
    see. A subclass of a container may hold attributes too (sqlparse's token types are
    tuples with a ``__dict__``)."""
    held = getattr(item, "__dict__", None)
    if isinstance(item, dict):
        out.append(len(item))
        stack.extend(item.keys())
        stack.extend(item.values())
    elif isinstance(item, _CONTAINERS):
        out.append(len(item))
        stack.extend(item)
    if held is None:  # a bare ``object()`` (a sentinel) holds nothing
        return type(item) in _PLAIN
    if type(held) is not dict or hasattr(type(item), "__slots__"):
        return False
    out.append(len(held))
    stack.extend(held.keys())
    stack.extend(held.values())
    return True


_PLAIN = frozenset([dict, list, tuple, set, frozenset, object])
