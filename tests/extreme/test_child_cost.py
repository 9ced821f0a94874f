"""What a transformation's child is left to do: the work that is the same for every child of
a request (compiling the transformed code) is done once, in the worker, before it forks."""

from __future__ import annotations

import ast
import types

from lsp_server.extreme import code_swap as swapping

SOURCE = """
def outer(step):
    def add(x):
        return x + step
    return add
"""


def _live_and_def() -> tuple[types.FunctionType, ast.FunctionDef]:
    namespace: dict[str, object] = {}
    exec(compile(SOURCE, "m.py", "exec"), namespace)
    outer = namespace["outer"]
    assert isinstance(outer, types.FunctionType)
    add = outer(10)
    tree = ast.parse(SOURCE)
    (node,) = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "add"]
    return add, node


def test_the_transformed_code_is_compiled_without_being_swapped_in() -> None:
    add, node = _live_and_def()
    pairs = swapping.replacements([add], node, "return 0")
    assert add(1) == 11  # compiled only: the live function still runs its own code
    assert [function for function, _ in pairs] == [add]
    swapping.apply(pairs)
    assert add(1) == 0
    assert add.__code__.co_freevars == ("step",)  # the closure kept
    assert add.__code__.co_firstlineno == node.lineno


def test_compiled_code_swaps_into_each_copy_of_a_closure() -> None:
    add, node = _live_and_def()
    other = add.__globals__["outer"](20)  # type: ignore[operator]
    pairs = swapping.replacements([add, other], node, "return -x")
    swapping.apply(pairs)
    assert (add(3), other(3)) == (-3, -3)
