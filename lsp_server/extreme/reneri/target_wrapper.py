"""The Reneri target wrapper: every call of the target goes to a dispatcher that runs either
the original or the transformed body, inside the test subprocess.

The target is wrapped without touching its source: every function object that runs the
target's code gets the wrapper as its ``__code__`` (through ``code_swap``, which compiles
it with exactly the target's free variables, so closures and methods that use ``super()``
are wrapped too). The original behaviour stays reachable through a fresh function object
built from the original code, closure, defaults and globals; the transformed behaviour
through one compiled from the transformed body with the same parameters.
"""

from __future__ import annotations

import ast
import inspect
import types

from lsp_server.extreme.code_swap import (
    FuncDef,
    compile_like,
    copy_function,
    replacement_code,
)

DISPATCH = "__reneri_dispatch__"
ADISPATCH = "__reneri_adispatch__"


def transformed_function(
    fn: types.FunctionType, funcdef: FuncDef, body: str, filename: str
) -> types.FunctionType:
    """``fn`` with its whole body replaced by ``body`` (e.g. ``return True``, ``pass``)."""
    code = replacement_code(funcdef, body, filename, fn.__code__.co_freevars)
    return copy_function(fn, code)


def wrapper_code(fn: types.FunctionType, index: int) -> types.CodeType:
    """Code that sends every call of ``fn`` to the dispatcher, tagged with ``index``; it
    has ``fn``'s free variables (unused) so that it can replace ``fn.__code__``."""
    is_async = bool(fn.__code__.co_flags & inspect.CO_COROUTINE)
    if is_async:
        source = f"async def {fn.__name__}(*args, **kwargs):\n"
        source += f"    return await {ADISPATCH}({index}, args, kwargs)\n"
    else:
        source = f"def {fn.__name__}(*args, **kwargs):\n"
        source += f"    return {DISPATCH}({index}, args, kwargs)\n"
    funcdef = ast.parse(source).body[0]
    assert isinstance(funcdef, (ast.FunctionDef, ast.AsyncFunctionDef))
    return compile_like(funcdef, fn.__code__.co_freevars, fn.__code__.co_filename)
