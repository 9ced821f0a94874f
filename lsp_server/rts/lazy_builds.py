"""An object a class attribute or module global holds once the first test that needs it
built it (a singleton made on first use), read by every later test (Python 3.12+).

sqlparse's ``Lexer.get_default_instance()``: ``if cls._default_instance is None:
cls._default_instance = cls()``, then it loads the keyword tables. The first test that
lexes builds it; every later lexing test reads it. By the rebound-names rule of
``rts.filled_containers`` each reader depended on everything that first test ran,
reindenting included (a51df6d9e2, a reindent edit: 468 tests against testmon's 45). The
object depends on the code that ran while it was built, and on the code of the tests that
changed it afterwards; the rest of the building test is none of its business.

Watched: the functions of a project class (its own methods) that store an attribute the
class binds to None (``STORE_ATTR``), and the functions of a project module that store a
global it binds to None (``STORE_GLOBAL``). A call of one starting while such a name is
None may build: a ``sys.monitoring`` tool of its own opens a span on the tracer
(``CodeTracer.open_span``) and closes it when that frame returns or unwinds. The build is
*told* when the call's arguments are the class itself (``cls``), modules or values nothing
can change (``cached_calls.frozen``): what the test made before the call cannot reach the
object through them. Then the rebinding test's share is the span, provided the object's
state (``object_states.state_of``) at the end of the test is what it was when the call
returned. From then on its state is compared after every test: a test that changed it
(``add_keywords`` on the lexer, a reset that builds its tables anew) is a rebinder too.
Otherwise (a build not told, from other arguments, an object whose state cannot be
compared, before 3.12) the whole rebinding test counts, as before.

A test that changed such an object and then rebuilt it in place (sqlparse's
``Lexer.get_default_instance().default_initialization()`` "to reset the syntax for later
tests", after ``add_keywords`` or ``clear``) would tie every later reader to all it ran
(cd4c1b6, a grouping edit: every splitting test). So the object's own methods (those of its
class) that ran while it was built are watched too once it is watched: a call of one on the
object, with every other argument plain as above and outside any other watched call, is a
told rebuild with its span. When the test's last told rebuild left the object as the test
left it (same state) and in the shape it was built in (``state_of(shape=True)``: equal
containers and instances holding the very same values), readers depend on that span:
whatever the test did to the object before, the rebuild undid. A change after it, a
rebuild that keeps what the test added, a call with other arguments: all the test ran.

Not seen (as in ``rts.cached_calls``): a build that depends on module state the building
test set before the call other than through names the call's code reads.
"""

from __future__ import annotations

import dis
import inspect
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from sys import _getframe
from types import CodeType, FrameType, FunctionType, ModuleType
from typing import Any

from lsp_server.rts.cached_calls import SPANS_PER_TEST, frozen
from lsp_server.rts.identity import identity
from lsp_server.rts.monitoring_tools import claim_call_tool, release_call_tool
from lsp_server.rts.object_states import state_of
from lsp_server.rts.plain_values import is_kind
from lsp_server.rts.tracing import CodeSet, CodeTracer, SpanToken

_MON: Any = getattr(sys, "monitoring", None)
_MISSING = object()
_NAMED_WALKED = (dict, list, set)  # containers bound by name are walked into: not ``named``
_SUSPENDING = (
    inspect.CO_GENERATOR
    | inspect.CO_COROUTINE
    | inspect.CO_ITERABLE_COROUTINE
    | inspect.CO_ASYNC_GENERATOR
)  # named containers are walked into: not ``named``


@dataclass(frozen=True)
class _Slot:
    """A name bound to None in a class's or module's namespace."""

    owner: object
    namespace: Mapping[str, Any]
    name: str

    def value(self) -> Any:
        return self.namespace.get(self.name, _MISSING)


@dataclass
class _Built:
    """What a told build (or rebuild) left: the object, what ran to build it, its state
    then, and for a build its shape (``state_of(shape=True)``)."""

    value: object
    span: CodeSet
    state: tuple[int, ...] | None
    shape: tuple[int, ...] | None = None


@dataclass
class _Watched:
    slot: _Slot
    value: object
    state: tuple[int, ...] | None
    shape: tuple[int, ...] | None  # as built


@dataclass
class _OpenCall:
    """A watched call under way: a build (``slots`` empty then) or a rebuild of the
    objects ``rebuilt`` names (keys of ``LazyBuilds._watched``)."""

    frame: FrameType
    code: CodeType
    slots: list[_Slot]
    token: SpanToken | None
    rebuilt: list[tuple[int, str]]


class LazyBuilds:
    """``take`` each project namespace; per test ``before``, then ``share`` for each name
    the test rebound and ``changed`` for the objects it changed."""

    def __init__(self, tracer: CodeTracer) -> None:
        self._tracer = tracer
        self._unavailable = not tracer.spans or _MON is None
        self._tool: int | None = None
        self._thread = threading.get_ident()
        self._slots: dict[int, list[_Slot]] = {}  # by identity(code) of a storing function
        self._codes: list[CodeType] = []  # the watched code objects, kept alive
        # Objects bound in project namespaces: module state of their own (``state_of``).
        self._named: set[int] = set()
        self._open: list[_OpenCall] = []
        self._opened = 0
        self._built: dict[tuple[int, str], _Built | None] = {}  # None: a build not told
        self._watched: dict[tuple[int, str], _Watched] = {}
        # By identity(code): the watched objects' own methods that ran in their build; a
        # told call of one on the object rebuilds it (``_rebuild_started``).
        self._rebuilders: set[int] = set()
        self._rebuilt: dict[tuple[int, str], _Built] = {}  # the test's last told rebuild

    def take(self, owner: object, namespace: Mapping[str, Any]) -> None:
        """Watch the functions of ``owner`` (a project module or class) that store a name
        ``namespace`` binds to None."""
        self._named.update(identity(v) for v in namespace.values() if not is_kind(v, _NAMED_WALKED))
        if self._unavailable:
            return
        empty = [n for n, v in namespace.items() if v is None and not n.startswith("__")]
        if not empty:
            return
        store = "STORE_GLOBAL" if isinstance(owner, ModuleType) else "STORE_ATTR"
        for code in _own_codes(namespace):
            stored = _stores(code, store, empty)
            if stored:
                slots = [_Slot(owner, namespace, name) for name in stored]
                self._watch(code, slots)

    def before(self) -> None:
        """Builds between tests are no test's."""
        self._built.clear()
        self._rebuilt.clear()
        self._opened = 0

    def share(self, owner: object, name: str, codes: CodeSet) -> CodeSet:
        """What the readers of ``name``, which the test rebound in ``owner``'s namespace,
        depend on of the test that ran ``codes``: the build's span when it was told and
        left the object as built, else ``codes``."""
        key = (identity(owner), name)
        built = self._built.pop(key, None)
        value = vars(owner).get(name, _MISSING)
        self._watched.pop(key, None)
        if built is None or built.value is not value or built.state is None:
            return codes
        now = state_of(value, self._named)
        if now is None:
            return codes
        slot = _Slot(owner, vars(owner), name)
        self._watched[key] = _Watched(slot, value, now, built.shape)
        self._watch_rebuilds(value, built.span)
        return codes if now != built.state else built.span

    def changed(self, codes: CodeSet) -> dict[str, CodeSet]:
        """The names whose built objects the test that ran ``codes`` changed (or whose
        state can no longer be compared), still bound to them, each with what its readers
        depend on of the test (``_rebuild_share``)."""
        found: dict[str, CodeSet] = {}
        for key, watched in list(self._watched.items()):
            if watched.slot.value() is not watched.value:
                del self._watched[key]  # rebound: the namespace comparison sees it
                continue
            now = state_of(watched.value, self._named)
            if now is None or now != watched.state:
                found[watched.slot.name] = self._rebuild_share(key, watched, now, codes)
                watched.state = now
        return found

    def _rebuild_share(
        self, key: tuple[int, str], watched: _Watched, now: tuple[int, ...] | None, codes: CodeSet
    ) -> CodeSet:
        """The span of the test's last told rebuild of the object when nothing changed the
        object after it and it left the object in the shape it was built in: whatever the
        test did to it before, the rebuild undid; else all the test ran."""
        rebuilt = self._rebuilt.get(key)
        if rebuilt is None or rebuilt.value is not watched.value or watched.shape is None:
            return codes
        if now is None or rebuilt.state != now:
            return codes  # changed after the rebuild (or by another thread)
        if state_of(watched.value, self._named, shape=True) != watched.shape:
            return codes
        return rebuilt.span

    def stop(self) -> None:
        if self._tool is None:
            return
        release_call_tool(self._tool)
        self._tool = None
        self._unavailable = True

    def _watch(self, code: CodeType, slots: list[_Slot]) -> None:
        if self._tool is None and not self._start():
            self._unavailable = True
            return
        key = identity(code)
        if key not in self._slots:
            self._codes.append(code)
            _MON.set_local_events(self._tool, code, _MON.events.PY_START)
        self._slots.setdefault(key, []).extend(slots)

    def _watch_rebuilds(self, value: object, span: CodeSet) -> None:
        """Watch the functions of ``value``'s class that ran while it was built."""
        if self._tool is None:
            return
        for code in _own_codes(vars(type(value))):
            key = identity(code)
            if key in span and key not in self._slots and key not in self._rebuilders:
                self._rebuilders.add(key)
                self._codes.append(code)
                _MON.set_local_events(self._tool, code, _MON.events.PY_START)

    def _start(self) -> bool:
        self._tool = claim_call_tool("reks-lazy-builds", self)
        return self._tool is not None

    def _on_start(self, code: CodeType, offset: int) -> Any:
        if threading.get_ident() != self._thread:
            return _MON.DISABLE
        key = identity(code)
        if key not in self._slots:
            return self._rebuild_started(code)
        empty = [slot for slot in self._slots[key] if slot.value() is None]
        if not empty:
            # Built already: calls cannot build again until events restart (the next
            # test); a reset in between leaves the build untold, the safe side.
            return _MON.DISABLE
        frame = _getframe(1)
        token = None
        owners = {identity(slot.owner) for slot in empty}
        if self._opened < SPANS_PER_TEST and _plain_arguments(frame, owners):
            self._opened += 1
            token = self._tracer.open_span()
        self._push(_OpenCall(frame, code, empty, token, []))
        return None

    def _rebuild_started(self, code: CodeType) -> Any:
        """A call of a rebuilder: told when its first argument is a watched object and the
        others are plain (``_plain_arguments``), outside any other watched call."""
        if self._open or self._opened >= SPANS_PER_TEST:
            return None  # within a build or rebuild: its span holds this call
        frame = _getframe(2)
        first = frame.f_code.co_varnames[: min(1, frame.f_code.co_argcount)]
        target = frame.f_locals.get(first[0], _MISSING) if first else _MISSING
        keys = [key for key, watched in self._watched.items() if watched.value is target]
        if not keys:
            return None  # another instance: a later call in the test may be on the object
        allowed = {identity(target)} | {identity(self._watched[k].slot.owner) for k in keys}
        if not _plain_arguments(frame, allowed):
            return None
        self._opened += 1
        self._push(_OpenCall(frame, code, [], self._tracer.open_span(), keys))
        return None

    def _push(self, call: _OpenCall) -> None:
        mon = _MON
        mon.set_local_events(self._tool, call.code, mon.events.PY_START | mon.events.PY_RETURN)
        if not self._open:  # PY_UNWIND is global only: on while a build is under way
            mon.set_events(self._tool, mon.events.PY_UNWIND)
        self._open.append(call)

    def _on_return(self, code: CodeType, offset: int, value: object) -> None:
        self._end(_getframe(1))

    def _on_unwind(self, code: CodeType, offset: int, exception: BaseException) -> None:
        self._end(_getframe(1))

    def _end(self, frame: FrameType) -> None:
        if not self._open or self._open[-1].frame is not frame:
            return  # another frame returning: a call that found the name bound
        call = self._open.pop()
        mon = _MON
        if not any(entry.code is call.code for entry in self._open):
            mon.set_local_events(self._tool, call.code, mon.events.PY_START)
        if not self._open:
            mon.set_events(self._tool, 0)
        span = None if call.token is None else self._tracer.close_span(call.token)
        for slot in call.slots:
            value = slot.value()
            if value is None or value is _MISSING:
                continue
            built = None
            if span is not None:
                state, shape = (state_of(value, self._named, shape) for shape in (False, True))
                built = _Built(value, span, state, shape)
            self._built[(identity(slot.owner), slot.name)] = built
        for key in call.rebuilt:
            watched = self._watched.get(key)
            if watched is None or span is None:
                self._rebuilt.pop(key, None)  # an earlier rebuild is not the last one
                continue
            self._rebuilt[key] = _Built(watched.value, span, state_of(watched.value, self._named))


def _stores(code: CodeType, store: str, names: list[str]) -> list[str]:
    """Of ``names``, those ``code`` stores with instruction ``store``."""
    if not set(names).intersection(code.co_names):
        return []
    return [
        name
        for name in names
        if any(i.opname == store and i.argval == name for i in dis.get_instructions(code))
    ]


def _own_codes(namespace: Mapping[str, Any]) -> list[CodeType]:
    """The code of the plain functions (methods, classmethods, staticmethods) bound in
    ``namespace`` whose frames return once (no generators: a span ends at each ``yield``)."""
    found = []
    for value in list(namespace.values()):
        function = getattr(value, "__func__", value)
        if type(function) is FunctionType and not function.__code__.co_flags & _SUSPENDING:
            found.append(function.__code__)
    return found


def _plain_arguments(frame: FrameType, allowed: set[int]) -> bool:
    """Whether each argument of the call starting in ``frame`` is one of the objects
    ``allowed`` lists by identity (the class holding a slot, the object rebuilt), a module,
    or a value nothing can change."""
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    local = frame.f_locals
    for name in code.co_varnames[:count]:
        value = local.get(name)
        if not (identity(value) in allowed or isinstance(value, ModuleType) or frozen(value)):
            return False
    return True
