"""The SAT route's suites are as strong as the bounded-exhaustive ones on bugs that need a
relation between field values the criterion does not name: a new key after every stored one,
a successor deeper than the right child, a smaller key in a later root. Each bug sits on a
branch the bounded-exhaustive suite of the same scope covers (bench/fex_vs_be.py)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from lsp_server.fex import heap, suite
from lsp_server.fex.model import classes_of

from .conftest import EXAMPLES, STRUCTURES

SUBTLE_BUGS = {
    # add after the last stored key replaces the list instead of appending
    "sorted_list": (
        ("add", "remove"),
        "        else:\n            previous.next = fresh\n",
        "        else:\n            self.head = fresh\n",
    ),
    # remove's heir search forgets where the heir hangs once it goes left
    "bst": (
        ("add", "remove"),
        "heir_parent, heir = heir, heir.left",
        "heir = heir.left",
    ),
    # extract_min takes the first root, not the smallest one
    "binomial_heap": (
        ("insert", "extract_min"),
        "            if node.key < best.key:\n",
        "            if node is None:\n",
    ),
}


def load_source(name: str, source: str, tag: str) -> ModuleType:
    module = ModuleType(f"fex_strength_{name}_{tag}")
    sys.modules[module.__name__] = module  # annotations resolve through it
    exec(compile(source, str(EXAMPLES / f"{name}.py"), "exec"), module.__dict__)
    return module


def suite_passes(made: suite.Suite, module: ModuleType) -> bool:
    """Every call of the suite on ``module``'s classes keeps rep_ok and the postcondition."""
    cls = getattr(module, made.cls)
    classes = {name: getattr(module, name) for name in classes_of(cls)}
    for instance in made.instances:
        for method in made.methods:
            for args in itertools.product(*(values for _, values in method.params)):
                target = heap.build(classes, made.model, instance)
                before = heap.build(classes, made.model, instance)
                result: Any = getattr(target, method.name)(*args)
                post = getattr(target, f"post_{method.name}")
                if not target.rep_ok() or not post(before, result, *args):
                    return False
    return True


@pytest.mark.parametrize(
    ("name", "scope"),
    # bst at scope 5 too: there the single-field suite has no successor two levels down
    # (bench/fex_vs_be.py: branch coverage 2 points under BE); a path of two fields has
    [*((name, 4) for name in sorted(SUBTLE_BUGS)), ("bst", 5)],
)
def test_a_bug_needing_a_relation_between_fields_is_caught(name: str, scope: int) -> None:
    methods, original, mutated = SUBTLE_BUGS[name]
    source = Path(EXAMPLES / f"{name}.py").read_text()
    assert original in source
    correct = load_source(name, source, "correct")
    buggy = load_source(name, source.replace(original, mutated, 1), "buggy")
    made = suite.generate(
        getattr(correct, STRUCTURES[name]), scope, route="sat", methods=[*methods]
    )
    assert suite_passes(made, correct)
    assert not suite_passes(made, buggy)
