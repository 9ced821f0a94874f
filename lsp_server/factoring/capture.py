"""Capture: run T against the real E and record every interaction across the boundary.

T's references to E are rebound to recording stand-ins (``boundary.rebind``): functions and
classes of E record their calls; an object E returns reaches T as a ``Proxy`` that records
the method calls, attribute reads and writes and operators (``len``, ``iter``, ``next``,
``with``, ...) T performs on it, and reports the real class as its ``__class__`` so that
``isinstance`` still works. Callables T hands to E come back as callbacks recorded inside the
call that made them. An object E returns twice is the same reference (``{"$ref": n}``) twice.
"""

from __future__ import annotations

import inspect
import types
from collections import OrderedDict
from pathlib import Path
from typing import Any

from lsp_server.factoring import fs_effects, values
from lsp_server.factoring.boundary import (
    Boundary,
    Rebinding,
    is_exception_class,
    rebind,
    t_modules,
)
from lsp_server.factoring.changelang import describe
from lsp_server.factoring.e_objects import EObjects
from lsp_server.factoring.opaque import OpaqueObjects
from lsp_server.factoring.proxies import OPERATORS, RealClassChecks, install_operators, stand_in
from lsp_server.factoring.values import Json, Unserialisable

_MUTABLE = (list, dict, OrderedDict, set, bytearray)


class Recorder:
    """The transcript being written while T runs against the real E."""

    def __init__(self, root: Path, boundaries: list[Boundary]) -> None:
        self.root = root
        self.boundaries = boundaries
        self.events: list[dict[str, Any]] = []
        self.objects: dict[str, str] = {}
        """Reference number -> the class of the E object."""
        self.constants: dict[str, Json] = {}
        self.refusal: str | None = None
        self._e_objects = EObjects(lambda ref, real: Proxy(self, ref, real))
        self._callbacks: dict[int, int] = {}
        self._callback_reals: list[Any] = []
        self._t_objects: dict[int, int] = {}
        self._stack: list[dict[str, Any]] = []
        self._rebinding: Rebinding | None = None
        self._t_module_names: frozenset[str] = frozenset()
        self._callback_depth = 0
        self._awaitables = 0
        self._opaque = OpaqueObjects(boundaries)
        self._fs_watch = fs_effects.watch_for(boundaries)

    # -- the window -----------------------------------------------------------------------
    def start(self) -> None:
        self._t_module_names = frozenset(m.__name__ for m in t_modules(self.root, self.boundaries))
        self._rebinding = rebind(self.root, self.boundaries, self._stand_in)

    def stop(self) -> None:
        if self._rebinding is not None:
            self._rebinding.restore()
            self._rebinding = None
        changed = self._opaque.changed()
        if changed is not None:
            self.refuse(changed)

    def in_environment(self) -> bool:
        """Is E running (a call into E, not a callback of T that E made)?"""
        return len(self._stack) > self._callback_depth

    @property
    def t_module_names(self) -> frozenset[str]:
        return self._t_module_names

    def refuse(self, reason: str | None) -> None:
        if reason and self.refusal is None:
            self.refusal = reason

    def _stand_in(self, name: str, value: Any) -> Any:
        return stand_in(self, name, value, ModuleProxy, ClassProxy, FunctionProxy)

    # -- calls ----------------------------------------------------------------------------
    def call(self, target: dict[str, Any], fn: Any, args: tuple, kwargs: dict) -> Any:
        """Call ``fn`` of E for T, recording arguments, result or exception, callbacks and
        changes E made to T's mutable arguments."""
        where = describe(target)
        event: dict[str, Any] = {"kind": "call", **target}
        event["args"] = self.encode_outgoing(list(args), where)
        if kwargs:
            event["kwargs"] = self.encode_outgoing(kwargs, where)
        real_args = [self.unwrap(a) for a in args]
        real_kwargs = {k: self.unwrap(v) for k, v in kwargs.items()}
        self.events.append(event)
        # what a child did to tmp_path, which database files E made or removed
        fs = None if self._stack else self._fs_watch(target, real_args, real_kwargs)
        self._stack.append(event)
        result = None
        try:
            result = fn(*real_args, **real_kwargs)
        except BaseException as exc:
            event["raise"] = values.encode_exception(exc, self._incoming_other)
            raise
        finally:
            self._stack.pop()
            self._note_mutations(event, args, real_args)
            if fs is not None:
                self.refuse(fs.note(event, result))
        encoded, exported = self.export(result)
        event["result"] = encoded
        return exported

    def _note_mutations(self, event: dict[str, Any], args: tuple, real_args: list) -> None:
        if not isinstance(event["args"], list):
            return  # the arguments did not serialise: the boundary is refused already
        changed = {}
        for index, (given, passed) in enumerate(zip(args, real_args, strict=False)):
            if type(given) in _MUTABLE and given is passed:
                after = values.encode(given, self._outgoing_other)
                if after != event["args"][index]:
                    changed[str(index)] = after
        if changed:
            event["mutated"] = changed

    def get(self, ref: int, real: Any, name: str) -> Any:
        event: dict[str, Any] = {"kind": "get", "on": ref, "name": name}
        self.events.append(event)
        try:
            value = getattr(real, name)
        except BaseException as exc:
            event["raise"] = values.encode_exception(exc, self._incoming_other)
            raise
        encoded, exported = self.export(value)
        event["value"] = encoded
        return exported

    def set(self, ref: int, real: Any, name: str, value: Any) -> None:
        where = f"#{ref}.{name} = ..."
        event = {"kind": "set", "on": ref, "name": name}
        event["args"] = [self.encode_outgoing(value, where)]
        self.events.append(event)
        setattr(real, name, self.unwrap(value))

    def constant(self, name: str, value: Any) -> Any:
        """A data attribute of an E module (``subprocess.PIPE``): recorded once."""
        encoded, exported = self.export(value)
        self.constants.setdefault(name, encoded)
        return exported

    # -- values E returns (incoming) ---------------------------------------------------------
    def export(self, value: Any) -> tuple[Json, Any]:
        """The transcript form of a value E hands to T, and what T receives: the value itself
        when it is plain data, else with E's objects behind proxies."""
        if values.is_plain(value):
            return values.encode(value, self._incoming_other), value
        kind = type(value)
        if kind in (list, tuple):
            pairs = [self.export(item) for item in value]
            return values.encode(value, self._incoming_other), kind(p[1] for p in pairs)
        if kind is dict:
            exported = {k: self.export(v)[1] for k, v in value.items()}
            return values.encode(value, self._incoming_other), exported
        if inspect.isawaitable(value) and not isinstance(value, Proxy):
            self._awaitables += 1
            return {"$await": self._awaitables}, self._awaited(self._awaitables, value)
        return self._incoming_other(value), self._receive(value)

    async def _awaited(self, number: int, real: Any) -> Any:
        """What T awaits instead of E's awaitable: the await is an interaction of its own,
        recorded when T awaits (E runs meanwhile: its callbacks are recorded inside it)."""
        event: dict[str, Any] = {"kind": "await", "target": values.awaitable_name(number)}
        event["args"] = []
        self.events.append(event)
        self._stack.append(event)
        try:
            result = await real
        except BaseException as exc:
            event["raise"] = values.encode_exception(exc, self._incoming_other)
            raise
        finally:
            self._stack.remove(event)  # not pop: awaits of gathered tasks end in any order
        encoded, exported = self.export(result)
        event["result"] = encoded
        return exported

    def _receive(self, value: Any) -> Any:
        """What T gets for a non-plain value from E."""
        if id(value) in self._callbacks or id(value) in self._t_objects:
            return value
        if isinstance(value, (BaseException, type)) or is_exception_class(value):
            return value
        return self._e_objects.proxy(self._ref_of(value), value)

    def _incoming_other(self, value: Any) -> Json:
        if isinstance(value, Proxy):
            value = object.__getattribute__(value, "_reks_real")
        original = getattr(value, "__reks_callback__", None)
        if original is not None:
            value = original
        if id(value) in self._callbacks:
            return {"$cb": self._callbacks[id(value)]}
        if id(value) in self._t_objects:
            return {"$t": self._t_objects[id(value)]}
        if isinstance(value, BaseException):
            return {"$exc": values.encode_exception(value, self._incoming_other)}
        if isinstance(value, type):
            return {"$class": values.qualified_name(value)}
        return {"$ref": self._ref_of(value)}

    def _ref_of(self, value: Any) -> int:
        """The reference number of E's object ``value`` (see ``e_objects``)."""
        ref, new = self._e_objects.number(value)
        if new:
            self.objects[str(ref)] = values.qualified_name(type(value))
        return ref

    # -- values T hands to E (outgoing) -------------------------------------------------------
    def encode_outgoing(self, value: Any, where: str) -> Json:
        try:
            return values.encode(value, self._outgoing_other)
        except Unserialisable as exc:
            self.refuse(f"{exc} (in {where})")
            return {"$unserialisable": str(exc)}

    def _outgoing_other(self, value: Any) -> Json:
        if isinstance(value, Proxy):
            return {"$ref": object.__getattribute__(value, "_reks_ref")}
        if isinstance(value, (FunctionProxy, ClassProxy, ModuleProxy)):
            return {"$e": value._reks_name}
        if isinstance(value, BaseException):
            return {"$exc": values.encode_exception(value, self._outgoing_other)}
        if isinstance(value, types.TracebackType):
            return {"$traceback": None}
        if isinstance(value, type):
            return {"$class": values.qualified_name(value)}
        if isinstance(value, (types.FunctionType, types.MethodType)):
            return {"$cb": self._callback_number(value)}
        if callable(value) and hasattr(value, "__qualname__"):
            return {"$fn": values.qualified_name(value)}
        ref = self._e_objects.known(value)
        if ref is not None:  # E's own object, reached T unproxied (an exception's attribute)
            return {"$ref": ref}
        if self._opaque.owns(value):
            self._opaque.note(value)
        elif getattr(type(value), "__module__", "") not in self._t_module_names:
            raise Unserialisable(f"a {values.qualified_name(type(value))} does not serialise")
        # T's own object, or an opaque object of E's class: a handle
        number = self._t_objects.setdefault(id(value), len(self._t_objects))
        self._callback_reals.append(value)
        return {"$t": number, "type": values.qualified_name(type(value))}

    def _callback_number(self, fn: Any) -> int:
        number = self._callbacks.get(id(fn))
        if number is None:
            number = len(self._callback_reals)
            self._callbacks[id(fn)] = number
            self._callback_reals.append(fn)
        return number

    def unwrap(self, value: Any) -> Any:
        """What E receives for a value T hands over: the real object behind a proxy, a
        recording wrapper around a callable of T."""
        kind = type(value)
        if kind is Proxy:
            return object.__getattribute__(value, "_reks_real")
        if kind in (FunctionProxy, ClassProxy, ModuleProxy):
            return value._reks_real
        if kind in (types.FunctionType, types.MethodType):
            return self._callback_wrapper(value)
        if kind in (list, tuple) and not values.is_plain(value):
            return kind(self.unwrap(item) for item in value)
        if kind is dict and not values.is_plain(value):
            return {k: self.unwrap(v) for k, v in value.items()}
        return value

    def _callback_wrapper(self, fn: Any) -> Any:
        number = self._callback_number(fn)
        recorder = self

        def callback(*args: Any, **kwargs: Any) -> Any:
            return recorder.run_callback(number, fn, args, kwargs)

        callback.__reks_callback__ = fn  # type: ignore[attr-defined]
        return callback

    def run_callback(self, number: int, fn: Any, args: tuple, kwargs: dict) -> Any:
        """E calls back into T: recorded inside the E call that is running."""
        if not self._stack:
            self.refuse(
                f"callback #{number} ({values.qualified_name(fn)}) ran outside any call into E"
            )
            return fn(*args, **kwargs)
        entry: dict[str, Any] = {"cb": number, "args": self.export(list(args))[0]}
        exported_args = [self.export(a)[1] for a in args]
        exported_kwargs = {k: self.export(v)[1] for k, v in kwargs.items()}
        if kwargs:
            entry["kwargs"] = self.export(kwargs)[0]
        self._stack[-1].setdefault("callbacks", []).append(entry)
        self._callback_depth += 1
        try:
            result = fn(*exported_args, **exported_kwargs)
        finally:
            self._callback_depth -= 1
        entry["result"] = self.encode_outgoing(result, f"result of callback #{number}")
        return self.unwrap(result)


class FunctionProxy:
    """A function of E as T sees it during capture."""

    __slots__ = ("_reks_name", "_reks_real", "_reks_rec")

    def __init__(self, recorder: Recorder, name: str, real: Any) -> None:
        self._reks_rec, self._reks_name, self._reks_real = recorder, name, real

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._reks_rec.call({"target": self._reks_name}, self._reks_real, args, kwargs)

    def __repr__(self) -> str:
        return f"<recording {self._reks_name}>"


class ClassProxy(FunctionProxy, RealClassChecks):
    """A class of E: calling it records the construction; ``isinstance`` asks the real class."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._reks_real, name)
        qualified = f"{self._reks_name}.{name}"
        if callable(value) and not isinstance(value, type):
            return FunctionProxy(self._reks_rec, qualified, value)
        return self._reks_rec.constant(qualified, value)


class ModuleProxy(FunctionProxy):
    """A module of E: its functions and classes are recorded, its data read once."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._reks_real, name)
        qualified = f"{self._reks_name}.{name}"
        made = stand_in(self._reks_rec, qualified, value, ModuleProxy, ClassProxy, FunctionProxy)
        return self._reks_rec.constant(qualified, value) if made is None else made


class Proxy:
    """An object of E that T holds: every use is recorded against its reference number."""

    __slots__ = ("__weakref__", "_reks_real", "_reks_rec", "_reks_ref")

    def __init__(self, recorder: Recorder, ref: int, real: Any) -> None:
        object.__setattr__(self, "_reks_rec", recorder)
        object.__setattr__(self, "_reks_ref", ref)
        object.__setattr__(self, "_reks_real", real)

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # isinstance(proxy, E's class) holds
        return type(object.__getattribute__(self, "_reks_real"))

    def __getattr__(self, name: str) -> Any:
        recorder = object.__getattribute__(self, "_reks_rec")
        ref = object.__getattribute__(self, "_reks_ref")
        real = object.__getattribute__(self, "_reks_real")
        value = getattr(real, name)
        if callable(value) and not isinstance(value, type):

            def method(*args: Any, **kwargs: Any) -> Any:
                return recorder.call({"on": ref, "name": name}, value, args, kwargs)

            return method
        return recorder.get(ref, real, name)

    def __setattr__(self, name: str, value: Any) -> None:
        recorder = object.__getattribute__(self, "_reks_rec")
        ref = object.__getattribute__(self, "_reks_ref")
        recorder.set(ref, object.__getattribute__(self, "_reks_real"), name, value)

    def _reks_operator(self, name: str, args: tuple, kwargs: dict) -> Any:
        recorder = object.__getattribute__(self, "_reks_rec")
        real = object.__getattribute__(self, "_reks_real")
        ref = object.__getattribute__(self, "_reks_ref")
        operator = OPERATORS[name]

        def apply(*a: Any, **k: Any) -> Any:
            return operator(real, *a, **k)

        return recorder.call({"on": ref, "name": name}, apply, args, kwargs)


install_operators(Proxy)
