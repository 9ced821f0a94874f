"""What the arguments of a lookup call site (``rts.runtime_lookups``) hold in the calling
frame as the call runs."""

from __future__ import annotations

import builtins
from types import FrameType, ModuleType

from lsp_server.rts.reads import EVERY_NAME

Source = tuple[str, object]
"""Where a call's argument comes from: ("local" | "global" | "name", its name),
("const", its value), or ("list", the sources of the items of a list or tuple display)."""


def record_vars(frame: FrameType, sources: tuple[Source | None, ...], names: set[str]) -> bool:
    """``vars(obj)``: an instance's ``__dict__`` holds what code that ran stored there (a
    dependency already), no binding; a module's or a class's (or the caller's namespace,
    with no argument) may hold any binding: every name."""
    value = None if len(sources) != 1 or sources[0] is None else value_at(frame, sources[0])
    if value is None or isinstance(value, (ModuleType, type)):
        names.add(EVERY_NAME)
        return False
    return True


def value_at(frame: FrameType, source: Source) -> object:
    """The value ``source`` holds in ``frame`` (None when not found)."""
    kind, name = source
    if kind == "const":
        return name
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
