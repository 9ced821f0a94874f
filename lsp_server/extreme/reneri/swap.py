"""Swapping code in memory, inside the test subprocess.

The target function is wrapped without touching its source: every function object that
runs the target's code gets a wrapper as its ``__code__``. Replacing ``__code__`` (rather
than rebinding a module or class attribute) also reaches ``from m import f`` bindings and
references held by decorators, because they all point at the same function object. The
wrapper is compiled with exactly the target's free variables, so the swap also works for
closures and for methods that use ``super()``.

The original behaviour stays reachable through a fresh function object built from the
original code, closure, defaults and globals; the transformed behaviour through a function
compiled from the transformed body with the same parameters.
"""

from __future__ import annotations

import ast
import gc
import inspect
import os
import sys
import types
from collections.abc import Sequence
from typing import Any

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

_TYPE_PARAMS: dict[str, Any] = {"type_params": []} if sys.version_info >= (3, 12) else {}
"""Field that ``def`` and ``class`` nodes need from Python 3.12 on."""

DISPATCH = "__reneri_dispatch__"
ADISPATCH = "__reneri_adispatch__"


class SwapError(Exception):
    """The target function cannot be found or wrapped."""


def find_functions(filename: str, qualname: str, def_line: int) -> list[types.FunctionType]:
    """Every live function object that runs the code of ``qualname`` defined in ``filename``.

    ``def_line`` is the line of the ``def``; a decorated function's code starts at its
    first decorator, so any line up to the ``def`` is accepted.
    """
    wanted = os.path.realpath(filename)
    found: list[types.FunctionType] = []
    name = qualname.rsplit(".", 1)[-1]
    for obj in gc.get_objects():
        if not isinstance(obj, types.FunctionType):
            continue
        code = obj.__code__
        if code.co_name != name or obj.__qualname__ != qualname:
            continue
        if code.co_firstlineno > def_line:
            continue
        if os.path.realpath(code.co_filename) != wanted:
            continue
        found.append(obj)
    return found


def find_def(
    tree: ast.Module, qualname: str, def_line: int
) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The ``def`` node of ``qualname`` at ``def_line`` (classes are walked by name)."""
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.lineno == def_line
            and node.name == qualname.rsplit(".", 1)[-1]
        ):
            return node
    raise SwapError(f"no def of {qualname} at line {def_line}")


def compile_like(
    funcdef: ast.FunctionDef | ast.AsyncFunctionDef,
    freevars: Sequence[str],
    filename: str,
    class_name: str | None = None,
) -> types.CodeType:
    """Compile ``funcdef`` into a code object whose free variables are exactly ``freevars``.

    The function is nested in an outer function that binds every free variable (so they
    stay free, in the same sorted order CPython uses), and in a class named ``class_name``
    when given, so private names are mangled as in the real class.
    """
    funcdef = _strip(funcdef)
    outer_body: list[ast.stmt] = [
        ast.Assign(targets=[ast.Name(id=var, ctx=ast.Store())], value=ast.Constant(None))
        for var in freevars
        if var != "__class__"
    ]
    holder: ast.stmt = funcdef
    if class_name is not None or "__class__" in freevars:
        holder = ast.ClassDef(
            name=class_name or "__reneri_class__",
            bases=[],
            keywords=[],
            body=[funcdef],
            decorator_list=[],
            **_TYPE_PARAMS,
        )
    outer = ast.FunctionDef(
        name="__reneri_outer__",
        args=ast.arguments(
            posonlyargs=[],
            args=[],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        ),
        body=[*outer_body, holder],
        decorator_list=[],
        returns=None,
        **_TYPE_PARAMS,
    )
    module = ast.Module(body=[outer], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, filename, "exec", dont_inherit=True)
    found = _find_code(code, funcdef.name, funcdef.lineno)
    if found is None:
        raise SwapError(f"compiled code of {funcdef.name} not found")
    if tuple(sorted(found.co_freevars)) != tuple(sorted(freevars)) or len(found.co_freevars) != len(
        freevars
    ):
        raise SwapError(
            f"{funcdef.name}: free variables {found.co_freevars} differ from {tuple(freevars)}"
        )
    if found.co_freevars != tuple(freevars):
        raise SwapError(f"{funcdef.name}: free variables come in another order")
    return found


def _strip(
    funcdef: ast.FunctionDef | ast.AsyncFunctionDef,
) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """A copy without decorators, annotations and default expressions.

    Defaults live on the function object (kept across a ``__code__`` swap), so their
    expressions need not be evaluated again; annotations could name things not in scope.
    """
    args = funcdef.args
    none = ast.Constant(None)

    def bare(arg: ast.arg) -> ast.arg:
        return ast.arg(arg=arg.arg, annotation=None, lineno=arg.lineno, col_offset=arg.col_offset)

    new_args = ast.arguments(
        posonlyargs=[bare(a) for a in args.posonlyargs],
        args=[bare(a) for a in args.args],
        vararg=bare(args.vararg) if args.vararg else None,
        kwonlyargs=[bare(a) for a in args.kwonlyargs],
        kw_defaults=[None if d is None else none for d in args.kw_defaults],
        kwarg=bare(args.kwarg) if args.kwarg else None,
        defaults=[none for _ in args.defaults],
    )
    kind = type(funcdef)
    copy = kind(
        name=funcdef.name,
        args=new_args,
        body=funcdef.body,
        decorator_list=[],
        returns=None,
        **_TYPE_PARAMS,
    )
    return ast.copy_location(copy, funcdef)


def _find_code(code: types.CodeType, name: str, line: int) -> types.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_firstlineno == line:
                return const
            inner = _find_code(const, name, line)
            if inner is not None:
                return inner
    return None


def copy_function(fn: types.FunctionType, code: types.CodeType | None = None) -> types.FunctionType:
    """A new function object running ``code`` (default: ``fn``'s) with ``fn``'s context."""
    copy = types.FunctionType(
        code or fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
    )
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__
    copy.__dict__.update(fn.__dict__)
    return copy


def transformed_function(
    fn: types.FunctionType,
    funcdef: ast.FunctionDef | ast.AsyncFunctionDef,
    body: str,
    filename: str,
) -> types.FunctionType:
    """``fn`` with its whole body replaced by ``body`` (e.g. ``return True``, ``pass``)."""
    try:
        new_body = ast.parse(body).body
    except SyntaxError as exc:
        raise SwapError(f"transformation body does not parse: {body!r}") from exc
    for stmt in new_body:
        ast.increment_lineno(stmt, funcdef.body[0].lineno - 1)
    replaced = type(funcdef)(
        name=funcdef.name,
        args=funcdef.args,
        body=new_body or [ast.Pass()],
        decorator_list=[],
        returns=None,
        **_TYPE_PARAMS,
    )
    ast.copy_location(replaced, funcdef)
    ast.fix_missing_locations(replaced)
    # A transformation body is a constant: it needs none of the original's free variables.
    code = compile_like(replaced, (), filename, None)
    copy = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, None)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__
    return copy


def wrapper_code(fn: types.FunctionType, index: int) -> types.CodeType:
    """Code that sends every call of ``fn`` to the dispatcher, tagged with ``index``.

    It has ``fn``'s free variables (unused) so that it can replace ``fn.__code__``.
    """
    freevars = fn.__code__.co_freevars
    is_async = bool(fn.__code__.co_flags & inspect.CO_COROUTINE)
    keep_alive = f"            ({', '.join(freevars)},)\n" if freevars else "            pass\n"
    binds = "".join(f"    {var} = None\n" for var in freevars if var != "__class__")
    if is_async:
        call = f"    async def {fn.__name__}(*args, **kwargs):\n        if 0:\n{keep_alive}"
        call += f"        return await {ADISPATCH}({index}, args, kwargs)\n"
    else:
        call = f"    def {fn.__name__}(*args, **kwargs):\n        if 0:\n{keep_alive}"
        call += f"        return {DISPATCH}({index}, args, kwargs)\n"
    if "__class__" in freevars:
        call = "    class __reneri_class__:\n" + "".join(
            "    " + line + "\n" for line in call.splitlines()
        )
    source = f"def __reneri_outer__():\n{binds}{call}"
    code = compile(source, fn.__code__.co_filename, "exec", dont_inherit=True)
    found = _find_code(code, fn.__name__, _wrapper_line(source, fn.__name__))
    if found is None or found.co_freevars != freevars:
        raise SwapError(f"cannot build a wrapper for {fn.__qualname__}")
    return found


def _wrapper_line(source: str, name: str) -> int:
    for number, line in enumerate(source.splitlines(), start=1):
        if f"def {name}(" in line:
            return number
    raise SwapError("wrapper def not found")
