"""Loading the example structures of ``lsp_server/examples/fex`` and an independent oracle."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import lsp_server
from lsp_server.fex import heap
from lsp_server.fex.model import Model, Ref, build_model, classes_of

EXAMPLES = Path(lsp_server.__file__).parent / "examples" / "fex"
STRUCTURES = {
    "sorted_list": "SortedList",
    "bst": "BinarySearchTree",
    "red_black_tree": "RedBlackTree",
    "binomial_heap": "BinomialHeap",
}


def load_example(name: str) -> ModuleType:
    module_name = f"fex_example_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, EXAMPLES / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def example_class(name: str) -> type:
    return getattr(load_example(name), STRUCTURES[name])  # type: ignore[no-any-return]


def brute_force_extension(
    cls: type, scope: int, pairs_of: Callable[[Model, heap.Instance], set[Any]] = heap.pairs
) -> tuple[Model, set[Any], int]:
    """Every assignment of every slot, no pruning and no symmetry breaking: the feasible
    pairs (by ``pairs_of``) of the canonical labelling, and the number of distinct canonical
    valid instances."""
    model = build_model(cls, scope)
    classes = classes_of(cls)
    real = {obj: object.__new__(classes[obj.cls]) for obj in model.objects()}
    slots = [(obj, spec) for obj in model.objects() for spec in model.fields_of(obj.cls)]
    feasible: set[Any] = set()
    instances: set[Any] = set()
    for choice in itertools.product(*(spec.domain.values for _, spec in slots)):
        values: dict[Ref, dict[str, Any]] = {}
        for (obj, spec), value in zip(slots, choice, strict=True):
            object.__setattr__(real[obj], spec.name, real.get(value, value))
            values.setdefault(obj, {})[spec.name] = value
        if real[heap.root_ref(model)].rep_ok():
            instance = heap.canonical(model, heap.involved(model, values))
            instances.add(heap.freeze(instance))
            feasible |= pairs_of(model, instance)
    return model, feasible, len(instances)


@pytest.fixture
def load() -> Any:
    return example_class
