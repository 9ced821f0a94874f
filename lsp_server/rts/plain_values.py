"""Questions about a live value of the project that run none of its code.

The recorder looks at the values modules, classes, containers and frames hold (caches,
containers, namespaces handed to an instance). ``isinstance`` reads ``__class__`` through
the value's own ``__getattribute__`` and ``getattr(value, "__func__", value)`` runs its
``__getattr__``: a proxy bound at import and usable only inside a context (werkzeug's
``LocalProxy`` behind flask's ``request``) raises there, and the recorder's exception
stopped pytest with INTERNALERROR, so every later ``--reks`` run ran nothing. These ask the
value's type instead. A value that may claim another class through its hooks is
``may_be`` whatever it proxies, for the checks where a wrong no is unsound."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType, MethodType, WrapperDescriptorType
from typing import Any

_WRAPPERS = (classmethod, staticmethod, MethodType)


def is_kind(value: object, kinds: type | tuple[type, ...]) -> bool:
    """Whether ``value``'s own type is one of ``kinds`` (``isinstance`` without the
    ``__class__`` a hook may report)."""
    return issubclass(type(value), kinds)


def may_be(value: object, kinds: type | tuple[type, ...]) -> bool:
    """Whether ``value`` is one of ``kinds`` or may pass for one through its hooks (a class
    with its own attribute lookup or ``__class__``: a proxy)."""
    return is_kind(value, kinds) or _hooked(type(value))


def function_of(value: object) -> object:
    """The function a method or a class or static method wraps, else ``value``."""
    return value.__func__ if is_kind(value, _WRAPPERS) else value  # type: ignore[attr-defined]


def own_namespace(value: object) -> Mapping[str, Any] | None:
    """``value.__dict__`` read past the class's own attribute lookup, when it has one."""
    try:
        namespace = object.__getattribute__(value, "__dict__")
    except Exception:  # slots only, or a descriptor of the class that raises
        return None
    return namespace if is_kind(namespace, (dict, MappingProxyType)) else None


def _hooked(cls: type) -> bool:
    """Whether a class below ``object`` in ``cls``'s order defines ``__getattr__``,
    ``__class__`` or an attribute lookup of its own (a built-in type's slot wrapper is the
    generic lookup)."""
    for klass in cls.__mro__[:-1]:
        namespace = vars(klass)
        if "__getattr__" in namespace or "__class__" in namespace:
            return True
        lookup = namespace.get("__getattribute__")
        if lookup is not None and type(lookup) is not WrapperDescriptorType:
            return True
    return False
