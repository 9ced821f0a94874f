"""Observation of a program state, after Reneri's definitions, adapted to Python.

A value is observed as a flat mapping from a *path* to a text:

- the value itself at path ``""``: ``None``, the literal of a number, str, bytes or bool,
  ``<enum Color.RED>`` for an enum member, or ``<type Name>`` for any other object;
- ``[len]``: the length of a sized container (list, dict, set, ... or anything with
  ``__len__``);
- ``.name``: one level of attributes of other objects (``__dict__``, ``__slots__``,
  dataclass fields, and public properties of its class), each observed shallowly
  (value, None-ness, type and length, never their own attributes).

The texts are compared between runs; a text must therefore never carry an object's
address: ``repr`` is used only for literal types, and strings have their ``0x...`` object
addresses blanked (a ``repr`` stored in a string would otherwise differ between processes
for no reason the tests care about).

This module runs inside the test subprocess: it imports only the standard library.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
import re
import types
from collections.abc import Iterator

LEN = "[len]"
"""Path suffix of a container's length."""

MAX_STR = 200
"""Longer strings are observed by length and hash only (they would bloat the records)."""

MAX_ATTRIBUTES = 40
"""At most this many attributes of one object are observed."""

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
_SCALARS = (int, float, complex, str, bytes, bool)
_OPAQUE = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    functools.partial,
)


def observe(value: object, out: dict[str, str], path: str = "", *, depth: int = 1) -> None:
    """Add the observed properties of ``value`` to ``out``, their paths prefixed by ``path``.

    ``depth`` 1 observes one level of attributes; 0 observes the value alone. Nothing the
    observed object raises escapes: an attribute that cannot be read is left out.
    """
    out[path] = _value_text(value)
    if value is None or isinstance(value, (*_SCALARS, enum.Enum)):
        return
    length = _length(value)
    if length is not None:
        out[path + LEN] = str(length)
        return  # a container is observed by its length, as in the paper
    if depth <= 0 or _opaque(value):
        return
    for name, attribute in _attributes(value):
        observe(attribute, out, f"{path}.{name}", depth=depth - 1)


def _value_text(value: object) -> str:
    if value is None:
        return "None"
    if isinstance(value, enum.Enum):
        return f"<enum {type(value).__name__}.{value.name}>"
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, float) and not math.isfinite(value):
        return f"<float {value!r}>"  # nan and inf have no literal
    if isinstance(value, (int, float, complex)):
        return repr(value)
    if isinstance(value, (str, bytes)):
        if len(value) > MAX_STR:
            return f"<{type(value).__name__} len={len(value)} hash={hash(value) & 0xFFFFFFFF:x}>"
        if isinstance(value, str):
            blanked = _ADDRESS.sub("0x?", value)
            if blanked != value:
                return f"<str {blanked!r}>"  # no longer the literal of the real value
        return repr(value)
    return f"<type {type(value).__qualname__}>"


def _length(value: object) -> int | None:
    if isinstance(value, type) or not hasattr(type(value), "__len__"):
        return None
    try:
        length = len(value)  # type: ignore[arg-type]
    except Exception:
        return None
    return length if isinstance(length, int) else None


def _opaque(value: object) -> bool:
    """Functions, classes and modules: their attributes are code, not state."""
    return isinstance(value, _OPAQUE)


def _attributes(value: object) -> Iterator[tuple[str, object]]:
    seen: set[str] = set()
    names: list[str] = []
    if dataclasses.is_dataclass(value):
        names.extend(f.name for f in dataclasses.fields(value))
    for klass in type(value).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else list(slots))
    instance_dict = getattr(value, "__dict__", None)
    if isinstance(instance_dict, dict):
        names.extend(name for name in instance_dict if isinstance(name, str))
    for klass in type(value).__mro__:
        if klass is object:
            continue
        names.extend(
            name
            for name, member in klass.__dict__.items()
            if isinstance(member, property) and not name.startswith("_")
        )
    for name in names:
        if name in seen or name.startswith("__") or len(seen) >= MAX_ATTRIBUTES:
            continue
        seen.add(name)
        try:
            attribute = getattr(value, name)
        except Exception:
            continue
        yield name, attribute
