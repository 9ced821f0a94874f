"""Applying a transformation in memory: compile the new body and swap it into the function.

Assigning ``__code__`` changes the function object itself, so every reference to it sees
the transformation: the module attribute, ``from m import f`` bindings in other modules,
class dictionaries, decorator wrappers that captured it. CPython refuses the assignment
when the number of free variables differs (a closure, or a method using ``super()`` whose
``__class__`` cell the constant body does not need); such a transformation is an error,
never a detection. The file on disk is never touched.
"""

from __future__ import annotations

import ast
import copy
import gc
import os
import types
from collections import defaultdict


class SwapError(Exception):
    """The transformation cannot be applied in memory."""


FuncDef = ast.FunctionDef | ast.AsyncFunctionDef

FunctionIndex = dict[tuple[str, str], list[types.FunctionType]]
"""(real file name, code name) -> live function objects whose code comes from that file."""


def index_functions(root: str) -> FunctionIndex:
    """Every live function object defined in a file under ``root``. Built once in the worker
    before forking, so children find their target without scanning the heap."""
    prefix = os.path.realpath(root) + os.sep
    index: FunctionIndex = defaultdict(list)
    real: dict[str, str] = {}
    for obj in gc.get_objects():
        if not isinstance(obj, types.FunctionType):
            continue
        code = obj.__code__
        name = real.get(code.co_filename)
        if name is None:
            name = real[code.co_filename] = os.path.realpath(code.co_filename)
        if name.startswith(prefix):
            index[(name, code.co_name)].append(obj)
    return dict(index)


def find_targets(
    index: FunctionIndex, filename: str, name: str, first_line: int, def_line: int
) -> list[types.FunctionType]:
    """Live functions running the code of the ``def`` at ``def_line``. A decorated
    function's code starts at its first decorator, hence the line range."""
    candidates = index.get((os.path.realpath(filename), name), [])
    found = [f for f in candidates if first_line <= f.__code__.co_firstlineno <= def_line]
    # A function object rebound to other code (an earlier swap) is never in the index
    # twice; keep one entry per object.
    unique: dict[int, types.FunctionType] = {id(f): f for f in found}
    return list(unique.values())


def function_defs(source: str, filename: str) -> dict[tuple[int, str], FuncDef]:
    """Every ``def`` of a file by (line, name): parsed once in the worker, so a child only
    compiles the few lines of its new function (re-parsing a large module cost ~8 ms)."""
    tree = ast.parse(source, filename)
    return {
        (n.lineno, n.name): n
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def compile_body(node: FuncDef, filename: str, body: str) -> types.CodeType:
    """Code of ``node`` with its whole body replaced by ``body``.

    Same parameters (defaults and annotations live on the function object, not the code),
    no decorators; ``async def`` stays async so a coroutine function stays one."""
    new = copy.copy(node)
    args = copy.deepcopy(node.args)
    args.defaults = []
    args.kw_defaults = [None for _ in args.kwonlyargs]
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if arg is not None:
            arg.annotation = None
    new.args = args
    new.decorator_list = []
    new.returns = None
    new.body = ast.parse(body.replace("; ", "\n")).body
    module = ast.Module(body=[new], type_ignores=[])
    ast.fix_missing_locations(module)
    compiled = compile(module, filename, "exec", dont_inherit=True)
    for const in compiled.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == node.name:
            return const
    raise SwapError(f"compiling the new body of {node.name} produced no code")


def swap(functions: list[types.FunctionType], code: types.CodeType) -> None:
    """Give every function in ``functions`` the new code (in this process only)."""
    if not functions:
        raise SwapError("the function is not in memory after collection (imported lazily?)")
    for function in functions:
        old = function.__code__
        if len(old.co_freevars) != len(code.co_freevars):
            raise SwapError(
                f"closure: {function.__qualname__} has free variables "
                f"{', '.join(old.co_freevars)}; the new body cannot share them"
            )
        new = code.replace(co_firstlineno=old.co_firstlineno)
        if hasattr(old, "co_qualname"):
            new = new.replace(**{"co_qualname": old.co_qualname})
        try:
            function.__code__ = new
        except (ValueError, TypeError) as exc:
            raise SwapError(f"cannot swap the code of {function.__qualname__}: {exc}") from exc
