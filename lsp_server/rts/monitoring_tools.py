"""Claiming a ``sys.monitoring`` tool id of one's own (3.12+), and giving it back.

Each part of the recording that watches a few code objects apart from the tracer
(``rts.cached_calls``, ``rts.lazy_builds``) takes a free id, so that its events and its
``DISABLE`` answers touch no other tool's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

_MON: Any = getattr(sys, "monitoring", None)
_TOOL_IDS = (4, 3, 2, 1, 0)


def claim_tool(name: str, callbacks: Mapping[int, Callable[..., Any]]) -> int | None:
    """A free tool id, claimed as ``name`` with ``callbacks`` registered by event; None when
    every id is taken (or there is no ``sys.monitoring``)."""
    if _MON is None:
        return None
    for tool in _TOOL_IDS:
        if _MON.get_tool(tool) is None:
            _MON.use_tool_id(tool, name)
            for event, callback in callbacks.items():
                _MON.register_callback(tool, event, callback)
            return tool
    return None


def release_tool(tool: int, events: Iterable[int]) -> None:
    """Unregister the callbacks of ``events`` and free ``tool``."""
    for event in events:
        _MON.register_callback(tool, event, None)
    _MON.free_tool_id(tool)


def claim_call_tool(name: str, owner: Any) -> int | None:
    """``claim_tool`` for a watcher of calls: ``owner``'s ``_on_start``, ``_on_return`` and
    ``_on_unwind`` for PY_START, PY_RETURN and PY_UNWIND."""
    if _MON is None:
        return None
    events = _MON.events
    callbacks: dict[int, Callable[..., Any]] = {
        events.PY_START: owner._on_start,
        events.PY_RETURN: owner._on_return,
        events.PY_UNWIND: owner._on_unwind,
    }
    return claim_tool(name, callbacks)


def release_call_tool(tool: int) -> None:
    """``release_tool`` for a tool ``claim_call_tool`` claimed."""
    events = _MON.events
    release_tool(tool, (events.PY_START, events.PY_RETURN, events.PY_UNWIND))
