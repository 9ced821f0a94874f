"""Instances of a model: the objects reachable from the root, their field values, the pairs
they cover, a canonical labelling, and real Python objects built from them.

Stdlib-only (runs inside the project's interpreter).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from lsp_server.fex.model import Model, Ref, Value, value_from_json, value_to_json

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


def path_pairs(instance: Instance, length: int = 2) -> set[Pair]:
    """``(key of a path, object, value)`` for every path of 2 to ``length`` fields whose
    every field but the last is a reference (``Node.right.left``, ``Node.left.red``):
    ``object.f.g == value``, the fields of an object's neighbours as seen from it."""
    out: set[Pair] = set()
    frontier = [
        (f"{obj.cls}.{name}", obj, value)
        for obj in instance
        for name, value in instance[obj].items()
    ]
    for _ in range(length - 1):
        step = []
        for key, obj, value in frontier:
            if isinstance(value, Ref) and value in instance:
                step += [(f"{key}.{name}", obj, far) for name, far in instance[value].items()]
        out.update(step)
        frontier = step
    return out


def sized_pairs(model: Model, instance: Instance) -> set[Pair]:
    """Every pair of ``pairs`` tagged with the value of each plain field of the root (a
    size): ``("Node.red|size=3", Node1, False)``."""
    root = root_ref(model)
    plain = [spec.name for spec in model.fields_of(root.cls) if not spec.domain.is_ref]
    sizes = [(name, instance[root][name]) for name in plain]
    return {
        (f"{key}|{name}={size}", obj, value)
        for key, obj, value in pairs(model, instance)
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
