"""Values in a transcript: plain data written as readable JSON, everything else by reference.

Plain data (None, bools, numbers, strings, bytes, lists, tuples, dicts, sets, paths) is written
by value, with a small tagged form where JSON has no direct spelling (``{"$tuple": [...]}``).
Any other value is handed to ``other``, which the capture and the replay side supply: it writes
an object of the environment as ``{"$ref": n}``, a callable of the code under test as
``{"$cb": k}``, or refuses the value with ``Unserialisable``.
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import importlib
import math
import pathlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from lsp_server.factoring.run_varying import TEMP_ROOT

Json = Any
"""A value ``json.dumps`` writes."""

_SCALARS = (bool, int, float, str, type(None))
_EPOCH_2001 = 1e9  # a number below it is no wall-clock reading (quick test)


class Unserialisable(Exception):
    """A value crossing the boundary has no transcript form: the boundary is refused."""


def awaitable_name(number: int) -> str:
    """The transcript target of awaiting the ``number``-th awaitable E handed to T."""
    return f"<awaitable #{number}>"


def is_plain(value: Any) -> bool:
    """Whether ``value`` is written by value (containers: all their items too)."""
    kind = type(value)
    if kind in _SCALARS or kind in (bytes, bytearray, datetime.timedelta):
        return True
    if isinstance(value, pathlib.PurePath):
        return True
    if kind in (list, tuple, set, frozenset):
        return all(is_plain(item) for item in value)
    if kind is dict or kind is OrderedDict:
        return all(is_plain(k) and is_plain(v) for k, v in value.items())
    return False


def encode(value: Any, other: Callable[[Any], Json]) -> Json:
    """The transcript form of ``value``; ``other`` writes what is not plain data."""
    kind = type(value)
    if kind is str:
        return TEMP_ROOT.encode(value)
    if kind in _SCALARS:
        if kind is float and not math.isfinite(value):
            return {"$float": repr(value)}
        if kind is int and value in TEMP_ROOT.ports:  # one the OS assigned: a role
            return {"$port": TEMP_ROOT.port_role(value)}
        if (kind is float or kind is int) and value > _EPOCH_2001:
            role = TEMP_ROOT.clock_role(value)
            if role is not None:
                return {"$clock": role}
        return value
    if kind is list:
        return [encode(item, other) for item in value]
    if kind is tuple:
        return {"$tuple": [encode(item, other) for item in value]}
    if kind is dict:
        if all(type(k) is str and not k.startswith("$") for k in value):
            changes = TEMP_ROOT.environment_changes(value)
            if changes is not None:  # what the run inherited is a role, not the value
                changed, removed = changes
                return {"$environ": encode(changed, other), "removed": removed}
            return {k: encode(v, other) for k, v in value.items()}
        return {"$dict": [[encode(k, other), encode(v, other)] for k, v in value.items()]}
    if kind is datetime.timedelta:
        return {"$timedelta": [value.days, value.seconds, value.microseconds]}
    if kind is OrderedDict:
        return {"$odict": [[encode(k, other), encode(v, other)] for k, v in value.items()]}
    if kind in (set, frozenset):
        items = [encode(item, other) for item in value]
        return {"$set" if kind is set else "$frozenset": sorted(items, key=repr)}
    if kind in (bytes, bytearray):
        return _encode_bytes(bytes(value), kind is bytearray)
    if isinstance(value, pathlib.PurePath):
        return {"$path": TEMP_ROOT.encode(str(value)), "type": type(value).__name__}
    return other(value)


def _encode_bytes(data: bytes, mutable: bool) -> Json:
    tag = "$bytearray" if mutable else "$bytes"
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return {tag: base64.b64encode(data).decode("ascii"), "base64": True}
    return {tag: text}


def decode(data: Json, other: Callable[[dict[str, Any]], Any]) -> Any:
    """The value ``data`` stands for; ``other`` resolves the tags ``decode`` does not know.
    Dispatched on the tag (the first ``$`` key): replay decodes every recorded result, and
    diskcache's sqlite3 transcripts hold thousands (rows as ``$tuple``)."""
    kind = type(data)
    if kind is str:
        return TEMP_ROOT.decode(data)
    if kind is list:
        return [decode(item, other) for item in data]
    if kind is not dict:
        return data
    if "$ref" in data:  # an E object: the most frequent tag by far
        return other(data)
    for key in data:
        if key[:1] == "$":
            decoder = _DECODERS.get(key)
            return other(data) if decoder is None else decoder(data, other)
    return {k: decode(v, other) for k, v in data.items()}


def _decode_bytes(data: dict[str, Any], tag: str) -> bytes | bytearray:
    raw = data[tag].encode("ascii")
    raw = base64.b64decode(raw) if data.get("base64") else raw
    return bytearray(raw) if tag == "$bytearray" else raw


def _decode_path(data: dict[str, Any], other: Any) -> pathlib.PurePath:
    path_kind = getattr(pathlib, data.get("type", "Path"), pathlib.Path)
    return path_kind(TEMP_ROOT.decode(data["$path"]))


_DECODERS: dict[str, Callable[[dict[str, Any], Any], Any]] = {
    "$tuple": lambda data, other: tuple([decode(item, other) for item in data["$tuple"]]),
    "$dict": lambda data, other: {decode(k, other): decode(v, other) for k, v in data["$dict"]},
    "$timedelta": lambda data, other: datetime.timedelta(*data["$timedelta"]),
    "$odict": lambda data, other: OrderedDict(
        (decode(k, other), decode(v, other)) for k, v in data["$odict"]
    ),
    "$set": lambda data, other: {decode(item, other) for item in data["$set"]},
    "$frozenset": lambda data, other: frozenset(decode(item, other) for item in data["$frozenset"]),
    "$environ": lambda data, other: TEMP_ROOT.environment(
        decode(data["$environ"], other), data["removed"]
    ),
    "$clock": lambda data, other: TEMP_ROOT.clock_value(data["$clock"]),
    "$port": lambda data, other: TEMP_ROOT.port_value(data["$port"]),
    "$float": lambda data, other: float(data["$float"]),
    "$bytes": lambda data, other: _decode_bytes(data, "$bytes"),
    "$bytearray": lambda data, other: _decode_bytes(data, "$bytearray"),
    "$path": _decode_path,
    "$class": lambda data, other: import_name(data["$class"]),
}
"""How each tag of plain data is decoded; any other tag is ``other``'s (E objects, T's
callbacks and objects, exceptions)."""


def qualified_name(obj: Any) -> str:
    """``module.qualname`` of a class or function."""
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', '?')}"


def import_name(name: str) -> Any:
    """The object a ``module.qualname`` names (the longest importable module prefix).
    Remembered: replay asks for the class of every E object it makes (diskcache's sqlite3
    transcript makes three thousand cursors)."""
    found = _IMPORTED.get(name)
    if found is None:
        found = _import_name(name)
        if isinstance(found, type):  # not functions: a test may monkeypatch those
            _IMPORTED[name] = found
    return found


_IMPORTED: dict[str, type] = {}


def _import_name(name: str) -> Any:
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            continue
        return obj
    raise ImportError(f"cannot import {name}")


def encode_exception(exc: BaseException, other: Callable[[Any], Json]) -> Json:
    """An exception E raised: its class, arguments and instance attributes."""
    attrs = {k: encode(v, other) for k, v in vars(exc).items() if not k.startswith("__")}
    return {
        "type": qualified_name(type(exc)),
        "args": encode(list(exc.args), other),
        "attrs": attrs,
    }


def decode_exception(data: Json, other: Callable[[dict[str, Any]], Any]) -> BaseException:
    """Rebuild the recorded exception: by its constructor when that accepts the arguments."""
    cls = import_name(data["type"])
    args = decode(data["args"], other)
    try:
        exc = cls(*args)
    except Exception:
        exc = cls.__new__(cls)
        exc.args = tuple(args)
    for key, value in data.get("attrs", {}).items():
        # A read-only slot is one the constructor already set from the arguments.
        with contextlib.suppress(AttributeError, TypeError):
            setattr(exc, key, decode(value, other))
    return exc
