"""The model of a class under test: its objects, fields and their finite domains (the scope).

A *finitization* bounds the heap: how many objects of each class, and per field the values it
may hold (None or one of the objects of a class, ints in a range, bools, a list of constants).
It is written without importing reks, so a project whose interpreter lacks reks can still
declare one: a ``fex_scope(n)`` function (module level, or a static/class method of the class)
or a ``__fex_scope__`` attribute (what ``finitize`` sets) returns a plain dict::

    def fex_scope(n):
        return {"Node": n, "Node.key": range(n), "size": range(n + 1)}

A key naming a class gives its object count; ``Class.field`` or a bare ``field`` gives a
field's values, where a class stands for its objects (``"Node.next": [None, Node]``), which
is how an unannotated class declares its fields. Everything not given comes from the type
annotations: ``Node | None`` is None or a Node, ``int`` is 0..n, ``bool`` is False/True; the
class under test has one object.

This module is stdlib-only: it runs inside the project's interpreter.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Union

INVARIANT_NAME = "rep_ok"


class FexError(Exception):
    """A problem the user must fix (no invariant, a field without a domain, ...)."""


class Ref(NamedTuple):
    """Object number ``index`` of class ``cls`` in a bounded heap."""

    cls: str
    number: int

    def __str__(self) -> str:
        return f"{self.cls}{self.number}"


Value = None | int | bool | str | float | Ref


@dataclass(frozen=True)
class Domain:
    """The values one field may take; ``target`` is the class of a reference field."""

    values: tuple[Value, ...]
    target: str | None = None

    @property
    def is_ref(self) -> bool:
        return self.target is not None


@dataclass(frozen=True)
class FieldSpec:
    owner: str
    name: str
    domain: Domain

    @property
    def key(self) -> str:
        return f"{self.owner}.{self.name}"


@dataclass
class Model:
    """The bounded heap of a class under test at one scope."""

    root: str
    scope: int
    counts: dict[str, int]
    fields: list[FieldSpec]
    frozen: set[str] = field(default_factory=set)
    spec: list[Any] | None = None
    """The relational invariant (``__fex_spec__``) as plain data, if the class declares one."""

    def fields_of(self, cls: str) -> list[FieldSpec]:
        return [f for f in self.fields if f.owner == cls]

    def objects(self) -> list[Ref]:
        return [Ref(cls, i) for cls, count in self.counts.items() for i in range(count)]

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "scope": self.scope,
            "counts": self.counts,
            "fields": [
                {
                    "owner": f.owner,
                    "name": f.name,
                    "target": f.domain.target,
                    "values": [value_to_json(v) for v in f.domain.values],
                }
                for f in self.fields
            ],
            "frozen": sorted(self.frozen),
            "spec": self.spec,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Model:
        fields = [
            FieldSpec(
                f["owner"],
                f["name"],
                Domain(tuple(value_from_json(v) for v in f["values"]), f["target"]),
            )
            for f in data["fields"]
        ]
        return cls(
            data["root"],
            data["scope"],
            dict(data["counts"]),
            fields,
            set(data["frozen"]),
            data.get("spec"),
        )


def value_to_json(value: Value) -> Any:
    return {"ref": value.cls, "index": value.number} if isinstance(value, Ref) else value


def value_from_json(value: Any) -> Value:
    if isinstance(value, dict):
        return Ref(value["ref"], value["index"])
    return value


def finitize(scope: Callable[[int], dict[str, Any]]) -> Callable[[type], type]:
    """Class decorator: ``@finitize(lambda n: {"Node": n, "Node.key": range(n)})``."""

    def decorate(cls: type) -> type:
        cls.__fex_scope__ = staticmethod(scope)  # type: ignore[attr-defined]
        return cls

    return decorate


def invariant_of(cls: type, name: str = INVARIANT_NAME) -> Callable[[Any], Any]:
    """The invariant: method ``name`` of the class, or a function ``name`` of its module."""
    method = getattr(cls, name, None)
    if callable(method):
        return method
    module = sys.modules.get(cls.__module__)
    function = getattr(module, name, None) if module else None
    if callable(function):
        return function
    raise FexError(
        f"{cls.__name__} has no invariant: define a method `{name}(self) -> bool` that returns "
        f"whether an instance is valid (or name another with [tool.reks.fex] invariant = ...)"
    )


def user_scope(cls: type, n: int) -> dict[str, Any]:
    """The class's finitization dict at scope ``n`` (empty: annotations only)."""
    provider = getattr(cls, "__fex_scope__", None) or getattr(cls, "fex_scope", None)
    if provider is None:
        module = sys.modules.get(cls.__module__)
        provider = getattr(module, "fex_scope", None) if module else None
    if provider is None:
        return {}
    result = provider(n)
    if not isinstance(result, dict):
        raise FexError(f"fex_scope({n}) of {cls.__name__} must return a dict")
    return result


def _annotated_fields(cls: type) -> list[tuple[str, Any]]:
    """The instance fields in declaration order: dataclass fields, else annotations."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception as exc:
        raise FexError(f"cannot read the annotations of {cls.__name__}: {exc}") from exc
    if dataclasses.is_dataclass(cls):
        names = [f.name for f in dataclasses.fields(cls)]
    else:
        names = []
        for klass in reversed(cls.__mro__):
            for name in getattr(klass, "__annotations__", {}):
                if name not in names:
                    names.append(name)
    return [
        (name, hints[name])
        for name in names
        if name in hints and typing.get_origin(hints[name]) is not typing.ClassVar
    ]


def _split_optional(tp: Any) -> tuple[Any, bool]:
    """``X | None`` -> (X, True); ``X`` -> (X, False)."""
    origin = typing.get_origin(tp)
    union_types: tuple[Any, ...] = (Union,)
    if hasattr(types, "UnionType"):
        union_types += (types.UnionType,)
    if origin in union_types:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0], len(args) != len(typing.get_args(tp))
    return tp, False


def _default_domain(tp: Any, n: int) -> tuple[Domain | None, type | None]:
    """The domain an annotation implies, and the class it refers to (for references)."""
    inner, nullable = _split_optional(tp)
    none: tuple[Value, ...] = (None,) if nullable else ()
    if inner is bool:
        return Domain((*none, False, True)), None
    if inner is int:
        return Domain((*none, *range(n + 1))), None
    if inspect.isclass(inner) and inner.__module__ not in ("builtins", "typing"):
        return Domain(none, inner.__name__), inner
    return None, None


@dataclass
class _Builder:
    """Walks the classes reachable from the root through annotated reference fields."""

    n: int
    given: dict[str, Any]
    classes: dict[str, type] = field(default_factory=dict)
    fields: list[FieldSpec] = field(default_factory=list)

    def visit(self, cls: type) -> None:
        if cls.__name__ in self.classes:
            return
        self.classes[cls.__name__] = cls
        annotated = _annotated_fields(cls)
        prefix = f"{cls.__name__}."
        extra = [
            (key[len(prefix) :], None)
            for key in self.given
            if key.startswith(prefix) and key[len(prefix) :] not in dict(annotated)
        ]
        for name, tp in annotated + extra:
            explicit = self.given.get(f"{prefix}{name}", self.given.get(name))
            domain: Domain | None
            target: type | None
            if explicit is not None and not isinstance(explicit, int):
                domain, target = _explicit_domain(explicit)
            else:
                domain, target = _default_domain(tp, self.n)
            if domain is None:
                raise FexError(
                    f"field {prefix}{name}: no domain for annotation {tp!r}; give one in "
                    f'fex_scope(n), e.g. "{prefix}{name}": [...]'
                )
            self.fields.append(FieldSpec(cls.__name__, name, domain))
            if target is not None:
                self.visit(target)


def _explicit_domain(values: Any) -> tuple[Domain, type | None]:
    """A finitization's values; a class among them stands for its objects (``[None, Node]``:
    None or one of the Nodes)."""
    values = tuple(values)
    classes = [v for v in values if inspect.isclass(v)]
    if len(classes) > 1:
        raise FexError(f"a field may refer to one class, not {[c.__name__ for c in classes]}")
    if classes:
        nulls: tuple[Value, ...] = (None,) if None in values else ()
        return Domain(nulls, classes[0].__name__), classes[0]
    return Domain(values), None


def build_model(cls: type, n: int) -> Model:
    """The model of ``cls`` at scope ``n`` from its finitization and annotations."""
    if n < 0:
        raise FexError("the scope must be at least 0")
    given = user_scope(cls, n)
    builder = _Builder(n, given)
    builder.visit(cls)
    if not builder.fields:
        raise FexError(f"{cls.__name__} has no annotated fields to fill")
    counts = {}
    for name in builder.classes:
        count = given.get(name, 1 if name == cls.__name__ else n)
        if not isinstance(count, int) or count < 0:
            raise FexError(f"fex_scope: the object count of {name} must be an int >= 0")
        counts[name] = 1 if name == cls.__name__ else count
    fields = []
    for spec in builder.fields:
        domain = spec.domain
        if domain.target is not None:
            refs = tuple(Ref(domain.target, i) for i in range(counts[domain.target]))
            domain = Domain(domain.values + refs, domain.target)
        if not domain.values:
            raise FexError(f"field {spec.key} has an empty domain at scope {n}")
        fields.append(FieldSpec(spec.owner, spec.name, domain))
    frozen = {
        name
        for name, klass in builder.classes.items()
        if dataclasses.is_dataclass(klass) and klass.__dataclass_params__.frozen  # type: ignore[attr-defined]
    }
    relational = getattr(cls, "__fex_spec__", None)
    return Model(cls.__name__, n, counts, fields, frozen, list(relational) if relational else None)


def classes_of(cls: type) -> dict[str, type]:
    """The classes of the model of ``cls`` by name (to build real objects)."""
    builder = _Builder(0, user_scope(cls, 0))
    builder.visit(cls)
    return builder.classes
