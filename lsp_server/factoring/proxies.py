"""The operators a stand-in for an E object answers, shared by capture and replay.

Python looks special methods up on the type, never through ``__getattr__``, so the capture
proxy and the replay stub define each of them; both route it to ``_reks_operator(name, args,
kwargs)``, which records it (capture) or answers it from the transcript (replay).
"""

from __future__ import annotations

import operator
import os
import types
from collections.abc import Callable
from typing import Any


def _enter(obj: Any) -> Any:
    return type(obj).__enter__(obj)


def _exit(obj: Any, *args: Any) -> Any:
    return type(obj).__exit__(obj, *args)


def _contains(obj: Any, item: Any) -> bool:
    return item in obj


def _call(obj: Any, *args: Any, **kwargs: Any) -> Any:
    return obj(*args, **kwargs)


OPERATORS: dict[str, Callable[..., Any]] = {
    "__call__": _call,
    "__len__": len,
    "__iter__": iter,
    "__next__": next,
    "__bool__": bool,
    "__str__": str,
    "__repr__": repr,
    "__hash__": hash,
    "__fspath__": os.fspath,
    "__enter__": _enter,
    "__exit__": _exit,
    "__contains__": _contains,
    "__getitem__": operator.getitem,
    "__setitem__": operator.setitem,
    "__delitem__": operator.delitem,
    "__eq__": operator.eq,
    "__ne__": operator.ne,
    "__lt__": operator.lt,
    "__le__": operator.le,
    "__gt__": operator.gt,
    "__ge__": operator.ge,
    "__add__": operator.add,
    "__sub__": operator.sub,
}
"""Special method name -> how the real object answers it."""

READ_ONLY_OPERATORS = frozenset(
    {"__len__", "__bool__", "__str__", "__repr__", "__hash__", "__contains__", "__eq__", "__ne__"}
)
"""Operators that never change their receiver (section 8.3: may be added or removed)."""


def install_operators(cls: type) -> None:
    """Give ``cls`` every operator of ``OPERATORS``, each calling ``_reks_operator``."""
    for name in OPERATORS:
        setattr(cls, name, _operator_method(name))


def _operator_method(name: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return self._reks_operator(name, args, kwargs)

    method.__name__ = name
    return method


def stand_in(
    owner: Any, name: str, value: Any, module_cls: type, class_cls: type, function_cls: type
) -> Any:
    """The stand-in for E's ``value`` (capture proxy or replay stub, by the classes given):
    None for data. Exception classes stay real: ``except`` must match what E raises."""
    if isinstance(value, types.ModuleType):
        return module_cls(owner, name, value)
    if isinstance(value, type) and issubclass(value, BaseException):
        return value
    if isinstance(value, type):
        return class_cls(owner, name, value)
    if callable(value):
        return function_cls(owner, name, value)
    return None


class RealClassChecks:
    """``isinstance`` and ``issubclass`` against a class stand-in ask the real class."""

    __slots__ = ()
    _reks_real: Any

    def __instancecheck__(self, instance: Any) -> bool:
        return isinstance(instance, self._reks_real)

    def __subclasscheck__(self, subclass: type) -> bool:
        return issubclass(subclass, self._reks_real)
