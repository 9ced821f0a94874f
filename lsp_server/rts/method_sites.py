"""The lookup-method call sites of a frame (``self.__getattr__(item)``,
``object.__getattribute__(self, name)``: ``rts.runtime_lookups``) seen as they run where no
CALL event tells them: by the instrumented tracer (3.10/3.11, or asked for). A profile hook
sees a Python ``__getattr__`` called but no slot wrapper (``object.__getattribute__``), so
the frame's instructions are traced (``f_trace_opcodes``) from its marker to its return,
and each call at such a site hands its arguments over before it runs.

Only a marked function's own frame can be watched so (its marker hands the frame over): a
generator's frame (it returns at each ``yield``), a comprehension's (its own frame before
3.12) and a module's keep such sites unknown (``methods_seen`` is false), as before.

The trace function is a global one (``sys.settrace``) only while some watched frame runs:
another tool's (a debugger, coverage) leaves the frame unwatched and its code reading
every name. Each new frame meanwhile calls the global function once (it traces nothing):
the cost of a profile hook, for the few functions holding such sites.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

from lsp_server.rts.identity import identity
from lsp_server.rts.lookup_sites import METHOD_CALL
from lsp_server.rts.marker_codes import MARKER_NAMES
from lsp_server.rts.returns import returns_values
from lsp_server.rts.runtime_lookups import RuntimeLookups

Trace = Callable[[FrameType, str, Any], Any]


def watchable(code: CodeType) -> bool:
    """Whether ``code``'s frames can be watched: a marked function (its marker runs first)
    that returns when it ends (no generator)."""
    return (
        not MARKER_NAMES.isdisjoint(code.co_names)
        and returns_values(code)
        and code.co_name != "<module>"
    )


def _ignore(frame: FrameType, event: str, arg: object) -> None:
    """The global trace function: no other frame is traced."""
    return None


class MethodSiteWatch:
    """Traces the frames handed over (``watch``) until each returns, recording the lookup
    method calls at their code's sites into ``lookups``."""

    def __init__(self, lookups: RuntimeLookups) -> None:
        self._lookups = lookups
        self._offsets: dict[int, frozenset[int]] = {}  # by identity(code)
        self._depth = 0  # frames watched and not yet returned

    def offsets(self, code: CodeType) -> frozenset[int]:
        """The offsets of ``code``'s lookup-method calls (with their cache entries)."""
        key = identity(code)
        found = self._offsets.get(key)
        if found is None:
            sites = self._lookups.sites(code) or {}
            calls = (at for at, sources in sites.items() if sources[:1] == (METHOD_CALL,))
            found = self._offsets[key] = frozenset(calls)
        return found

    def watch(self, frame: FrameType, code: CodeType) -> bool:
        """Watch ``frame`` (running ``code``) until it returns; False when it cannot be
        (another tool's trace function is set)."""
        offsets = self.offsets(code)
        if not offsets:
            return True
        current = sys.gettrace()
        if current is not None and current is not _ignore:
            return False
        frame.f_trace_lines = False
        frame.f_trace_opcodes = True
        frame.f_trace = self._local(code, offsets)
        if current is None:
            # Whatever frames were counted lost their events with the function.
            self._depth = 0
            sys.settrace(_ignore)
        self._depth += 1
        return True

    def _local(self, code: CodeType, offsets: frozenset[int]) -> Trace:
        on_call = self._lookups.on_call

        def local(frame: FrameType, event: str, arg: object) -> Trace:
            if event == "opcode":
                at = frame.f_lasti
                if at in offsets and not on_call(frame, code, at, None):
                    frame.f_trace_opcodes = False  # every name read: nothing more to see
            elif event == "return":
                self._returned()
            return local

        return local

    def _returned(self) -> None:
        self._depth -= 1
        if self._depth <= 0 and sys.gettrace() is _ignore:
            sys.settrace(None)

    def stop(self) -> None:
        """Recording stops: no frame is watched any more."""
        self._depth = 0
        if sys.gettrace() is _ignore:
            sys.settrace(None)
