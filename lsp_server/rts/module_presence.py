"""Whether a module is there, asked of ``sys.modules`` by key, told as the ask runs (3.12+).

``name in sys.modules`` (``.get(name)``, ``.__contains__(name)``; ``.pop(name)`` and
``.setdefault(name, d)`` whose answer is used) sees whether some file
imported so far imports that module: another test's file may start to (sel36d), so the ask
is a listing of the session's state (``rts.module_table_keys``, ``rts.session_listings``)
wherever nothing tells more. Many ask about the module whose import is running them
(boltons' ``make_sentinel(var_name=...)``, called at the top level of a dozen modules,
checks ``frame.f_globals["__name__"] in sys.modules``): the import system put that module
in the table before running it, so the answer is yes whatever any file imports; a change
that stopped the import would stop the ask too, and what imports the module is a
dependency of its importers already.

So on 3.12 the instruction taking each ask's answer (``presence_sites``) gets INSTRUCTION
events of the tracer's tool. The event reads the key from the frame (a plain load pushed
it: the variable still holds it, as in ``rts.keyed_reads``) and tells that case apart: the
key names a module whose spec is initializing and whose top-level code runs on this
thread's stack. Any other answer (a module loaded earlier, a module not there, a key or a
table not told) leaves a marker of the code in the set of code running then (a test's, or
an import's footprint), which reads the listing: the marker is the asking code renamed
``PRESENCE_MARK``, and the attribution finds its units and its listing as the code's; the
code itself, told, reads no listing (``told_listing``). Elsewhere (3.10, 3.11) every ask
lists."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from inspect import getattr_static
from sys import _getframe
from types import CodeType, FrameType, ModuleType
from typing import Any

from lsp_server.rts.identity import identity
from lsp_server.rts.lookups import SESSION_LISTINGS
from lsp_server.rts.module_table_keys import (
    PresenceSite,
    asks_presence,
    lists_modules,
    presence_sites,
)
from lsp_server.rts.reads import SESSION_LISTING

PRESENCE_MARK = "<asks-loaded>"
"""The ``co_name`` of the marker an ask that was not told leaves."""
ASKS_PER_SITE = 256
"""Asks told per site over a session; past it each one lists (the stack walk costs)."""

CodeSet = dict[int, CodeType]


def told_listing(code: CodeType, names: frozenset[str]) -> frozenset[str]:
    """``names`` read by ``code`` where the tracer tells its asks (3.12+): without the
    listing its asks of ``sys.modules`` alone made, which their events tell (``code`` is
    not a marker, lists nothing else, and every ask of it is of a told shape)."""
    if SESSION_LISTING not in names or code.co_name == PRESENCE_MARK:
        return names
    if not SESSION_LISTINGS.isdisjoint(names - {"modules"}) or lists_modules(code):
        return names
    if not asks_presence(code) or not presence_sites(code):
        return names
    return names - {SESSION_LISTING}


def untold_presence_ask(code: CodeType, told: bool) -> bool:
    """Whether ``code``, a module's top level, asks ``sys.modules`` whether a module is
    there where no event tells the key (``told``: the tracer tells asks at their sites):
    its statements' names are read through the bindings, which see no ask, so it lists
    (``listing_marks.statement_listing``)."""
    if code.co_name != "<module>" or "modules" not in code.co_names:
        return False
    return asks_presence(code) and not (told and bool(presence_sites(code)))


@dataclass
class PresenceWatch:
    """The tracer's side: the asks of each watched code object, by offset, and a marker per
    code object (kept: its id stays a key). ``seen``: the set of code running now."""

    seen: Callable[[], CodeSet]
    sites: dict[int, dict[int, PresenceSite]] = field(default_factory=dict)
    markers: dict[int, CodeType] = field(default_factory=dict)
    codes: list[CodeType] = field(default_factory=list)  # watched, kept alive
    counts: dict[tuple[int, int], int] = field(default_factory=dict)

    def watch(self, code: CodeType) -> bool:
        """Whether ``code`` has asks to watch (``told_listing`` tells the same code apart)."""
        if "modules" not in code.co_names or not asks_presence(code):
            return False
        found = presence_sites(code)
        if not found:
            return False
        self.sites[identity(code)] = found
        self.codes.append(code)
        return True

    def event(self, disable: object) -> Callable[[CodeType, int], Any]:
        """The INSTRUCTION callback: an ask told about a module mid-import stays watched;
        any other leaves the code's marker and is disabled until events restart."""
        sites, counts, getframe = self.sites, self.counts, _getframe

        def on_instruction(code: CodeType, offset: int) -> Any:
            site = sites.get(identity(code), {}).get(offset)
            if site is None:
                return disable
            where = (identity(code), offset)
            count = counts[where] = counts.get(where, 0) + 1
            if count <= ASKS_PER_SITE and importing_asked(site, getframe(1)):
                return None
            marker = self.marker(code)
            self.seen()[identity(marker)] = marker
            return disable

        return on_instruction

    def marker(self, code: CodeType) -> CodeType:
        found = self.markers.get(identity(code))
        if found is None:
            found = self.markers[identity(code)] = code.replace(co_name=PRESENCE_MARK)
        return found


def importing_asked(site: PresenceSite, frame: FrameType) -> bool:
    """Whether the ask at ``site``, about to run in ``frame``, asks ``sys.modules`` about a
    module the import system is running on this stack (see the module docstring)."""
    key_shape, owner_shape = site
    if _loaded(owner_shape, frame) is not sys:
        return False
    key = _loaded(key_shape, frame)
    module = sys.modules.get(key) if type(key) is str else None
    if not isinstance(module, ModuleType):
        return False
    namespace = module.__dict__
    spec = namespace.get("__spec__")
    if spec is None or getattr_static(spec, "_initializing", False) is not True:
        return False
    return _runs_top_level(frame, namespace)


def _runs_top_level(frame: FrameType | None, namespace: dict[str, Any]) -> bool:
    while frame is not None:
        if frame.f_globals is namespace and frame.f_code.co_name == "<module>":
            return True
        frame = frame.f_back
    return False


_MISSING = object()


def _loaded(shape: tuple[str, object], frame: FrameType) -> Any:
    """What the plain load ``shape`` (``module_table_keys.PresenceSite``) pushes in
    ``frame`` right now; ``_MISSING`` when nothing is bound there."""
    kind, value = shape
    if kind == "const":
        return value
    if kind in ("local", "name"):
        found = frame.f_locals.get(str(value), _MISSING)
        if kind == "local" or found is not _MISSING:
            return found
    found = frame.f_globals.get(str(value), _MISSING)
    return frame.f_builtins.get(str(value), _MISSING) if found is _MISSING else found
