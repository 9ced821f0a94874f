"""Instances of a model: the objects reachable from the root, their field values, the pairs
they cover, a canonical labelling, and real Python objects built from them.

Stdlib-only (runs inside the project's interpreter).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from lsp_server.fex.model import (
    FieldSpec,
    Model,
    Ref,
    Value,
    value_from_json,
    value_to_json,
)

Instance = dict[Ref, dict[str, Value]]
"""The objects an instance involves (reachable from the root) and their field values."""

Pair = tuple[str, Ref, Value]
"""``(field key, object, value)``: ``object.field == value`` in some instance."""


def root_ref(model: Model) -> Ref:
    return Ref(model.root, 0)


def _discovery_order(model: Model, values: Mapping[Ref, Mapping[str, Value]]) -> list[Ref]:
    """The objects reachable from the root, breadth-first, fields in declaration order."""
    root = root_ref(model)
    seen = {root}
    order = [root]
    queue = deque([root])
    while queue:
        obj = queue.popleft()
        for spec in model.fields_of(obj.cls):
            value = values[obj][spec.name]
            if isinstance(value, Ref) and value not in seen:
                seen.add(value)
                order.append(value)
                queue.append(value)
    return order


def involved(model: Model, values: Mapping[Ref, Mapping[str, Value]]) -> Instance:
    """Restrict a full assignment to the objects reachable from the root, in BFS order."""
    return {obj: dict(values[obj]) for obj in _discovery_order(model, values)}


def canonical(model: Model, instance: Instance) -> Instance:
    """Relabel the objects by breadth-first discovery from the root, fields in declaration
    order: isomorphic instances get the same labelling (the one the SAT route encodes)."""
    names: dict[Ref, Ref] = {}
    counts: dict[str, int] = {}
    for obj in _discovery_order(model, instance):
        names[obj] = Ref(obj.cls, counts.get(obj.cls, 0))
        counts[obj.cls] = names[obj].number + 1

    def rename(value: Value) -> Value:
        return names[value] if isinstance(value, Ref) else value

    return {
        names[obj]: {name: rename(v) for name, v in fields.items()}
        for obj, fields in instance.items()
    }


def pairs(model: Model, instance: Instance) -> set[Pair]:
    return {
        (f"{obj.cls}.{name}", obj, value)
        for obj, fields in instance.items()
        for name, value in fields.items()
    }


SHAPES = ("None", "object")
"""What a path of references ends in, as a shape pair tells it (which object is left open)."""


def is_shape_field(spec: FieldSpec) -> bool:
    """A reference or a field of a few fixed values (a colour): not an int, whose values
    (keys, degrees) grow with the scope and are the criterion's to cover."""
    return spec.domain.is_ref or not any(
        isinstance(v, int) and not isinstance(v, bool) for v in spec.domain.values
    )


END_VALUES = 2
"""Under a small size an int field (a key) is asked for its this many lowest and highest
values only: enough for an argument to fall below, between and above them, as many at any
scope (every value would be about n inputs per size)."""


def sized_values(spec: FieldSpec) -> tuple[Value, ...]:
    """The values of ``spec`` the size round asks for: all of a shape field's, the
    ``END_VALUES`` lowest and highest of another's."""
    values = spec.domain.values
    if is_shape_field(spec) or len(values) <= 2 * END_VALUES:
        return values
    return values[:END_VALUES] + values[-END_VALUES:]


def ref_paths(model: Model, instance: Instance, obj: Ref, length: int) -> dict[str, str]:
    """Every path of 1 to ``length`` reference fields from ``obj`` that exists in
    ``instance`` (``Node.right.left``: obj.right is an object), with what it ends in
    (``SHAPES``)."""
    refs = {spec.key for spec in model.fields if spec.domain.is_ref}
    out: dict[str, str] = {}
    frontier: list[tuple[str, Ref]] = [("", obj)]
    for _ in range(length):
        step = []
        for path, near in frontier:
            for name, far in instance[near].items():
                if f"{near.cls}.{name}" in refs:
                    key = f"{path}.{name}" if path else f"{obj.cls}.{name}"
                    out[key] = SHAPES[far is not None]
                    if isinstance(far, Ref):
                        step.append((key, far))
        frontier = step
    return out


def path_shapes(model: Model, instance: Instance, length: int = 2) -> set[Pair]:
    """The shape around each object as seen from it: for two paths of references
    (``ref_paths`` joined by ``shape_path_pairs``), what both end in:
    ``("Node.left&Node.right.left", Node0, "object&object")``, a node whose successor is
    two levels down. Which objects the paths reach is left open: asking for each would ask
    for about n^2 pairs per path, n inputs or more."""
    out: set[Pair] = set()
    for obj in instance:
        ends = ref_paths(model, instance, obj, length)
        for a, b in shape_path_pairs(ends):
            out.add((f"{a}&{b}", obj, f"{ends[a]}&{ends[b]}"))
    return out


def shape_path_pairs(paths: Iterable[str]) -> list[tuple[str, str]]:
    """The two paths (``Class.f.g``) a shape pair joins: a field of the object with any
    other path not through it (``Node.left&Node.right.left``), each two once. Two longer
    paths are not joined: on a red-black tree at scope 16 that took the round from about
    13 inputs to 36 and changed no mutant or branch at scope 4."""
    ordered = sorted(paths)
    return [
        (a, b)
        for a in ordered
        if a.count(".") == 1
        for b in ordered
        if b != a and not b.startswith(f"{a}.") and (b.count(".") > 1 or a < b)
    ]


def sized_pairs(model: Model, instance: Instance) -> set[Pair]:
    """Every pair of ``pairs`` with one of its field's ``sized_values``, tagged with the
    value of each plain field of the root (a size): ``("Node.red|size=3", Node1, False)``."""
    root = root_ref(model)
    plain = [spec.name for spec in model.fields_of(root.cls) if not spec.domain.is_ref]
    asked = {spec.key: set(sized_values(spec)) for spec in model.fields}
    sizes = [(name, instance[root][name]) for name in plain]
    return {
        (f"{key}|{name}={size}", obj, value)
        for key, obj, value in pairs(model, instance)
        if value in asked[key]
        for name, size in sizes
    }


def freeze(instance: Instance) -> tuple[Any, ...]:
    """A hashable form (to count distinct instances)."""
    return tuple((obj, tuple(sorted(fields.items()))) for obj, fields in instance.items())


def build(classes: Mapping[str, type], model: Model, instance: Instance) -> Any:
    """Real objects for an instance, made without ``__init__``; returns the root object."""
    objects: dict[Ref, Any] = {obj: object.__new__(classes[obj.cls]) for obj in instance}
    for obj, fields in instance.items():
        for name, value in fields.items():
            real = objects[value] if isinstance(value, Ref) else value
            object.__setattr__(objects[obj], name, real)
    return objects[root_ref(model)]


def instance_to_json(instance: Instance) -> list[Any]:
    return [
        {
            "object": [obj.cls, obj.number],
            "fields": {name: value_to_json(v) for name, v in fields.items()},
        }
        for obj, fields in instance.items()
    ]


def instance_from_json(data: Iterable[Any]) -> Instance:
    return {
        Ref(*item["object"]): {name: value_from_json(v) for name, v in item["fields"].items()}
        for item in data
    }


def pair_to_json(pair: Pair) -> list[Any]:
    key, obj, value = pair
    return [key, str(obj), value_to_json(value)]


def instance_text(instance: Instance) -> str:
    """``SortedList0(head=Node0, size=1); Node0(key=0, next=None)``."""
    return "; ".join(
        f"{obj}(" + ", ".join(f"{k}={v}" for k, v in fields.items()) + ")"
        for obj, fields in instance.items()
    )
