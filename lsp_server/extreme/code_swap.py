"""The one swap engine: replace the code of live functions in memory, at run time.

Assigning ``__code__`` changes the function object itself, so every reference to it sees
the new code: the module attribute, ``from m import f`` bindings in other modules, class
dictionaries, decorator wrappers that captured it. CPython accepts the assignment only when
the new code has exactly the old one's free variables (a closure's variables, or the
``__class__`` cell of a method using ``super()``), so new code is compiled nested in a
function that binds those names (and in a class, for ``__class__``), with a dead reference
to each so they stay free. The extreme workers swap in a transformed body; Reneri swaps in
a wrapper that calls either side. Standard library only: it runs inside test processes.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import importlib
import os
import sys
import types
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from lsp_server.extreme.real_paths import real_path
from lsp_server.project.text import parse_python

FuncDef = ast.FunctionDef | ast.AsyncFunctionDef

FunctionIndex = dict[tuple[str, str], list[types.FunctionType]]
"""(real file name, code name) -> live function objects whose code comes from that file."""

_TYPE_PARAMS: dict[str, Any] = {"type_params": []} if sys.version_info >= (3, 12) else {}
"""Field that ``def`` and ``class`` nodes need from Python 3.12 on."""

_OUTER = "__reks_outer__"
_CLASS = "__reks_class__"


class SwapError(Exception):
    """The new code cannot be built or swapped in."""


# -- finding the live functions ------------------------------------------------------------


def index_functions(root: str) -> FunctionIndex:
    """Every live function object defined in a file under ``root``. Built once in the worker
    before forking, so children find their target without scanning the heap. Functions
    are grouped by their code's file name first: a worker holds ~16,000 functions from
    ~1,000 names, most of them generated code that names no file (attrs' ``__init__``)."""
    prefix = os.path.realpath(root) + os.sep
    by_name: dict[str, list[types.FunctionType]] = defaultdict(list)
    for obj in gc.get_objects():
        if type(obj) is types.FunctionType:  # functions cannot be subclassed
            by_name[obj.__code__.co_filename].append(obj)
    index: FunctionIndex = defaultdict(list)
    for filename, functions in by_name.items():
        if filename.startswith("<"):  # "<string>", "<attrs generated init ...>": no file
            continue
        real = real_path(filename)
        if real.startswith(prefix):
            for function in functions:
                index[(real, function.__code__.co_name)].append(function)
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


def find_functions(filename: str, qualname: str, def_line: int) -> list[types.FunctionType]:
    """Every live function object that runs the code of ``qualname`` defined in ``filename``
    (a scan of the heap, for a process that swaps one function only)."""
    wanted = os.path.realpath(filename)
    name = qualname.rsplit(".", 1)[-1]
    found: list[types.FunctionType] = []
    for obj in gc.get_objects():
        if not isinstance(obj, types.FunctionType):
            continue
        code = obj.__code__
        if code.co_name != name or obj.__qualname__ != qualname:
            continue
        if code.co_firstlineno <= def_line and os.path.realpath(code.co_filename) == wanted:
            found.append(obj)
    return found


def function_defs(source: str, filename: str) -> dict[tuple[int, str], FuncDef]:
    """Every ``def`` of a file by (line, name): parsed once in the worker, so a child only
    compiles the few lines of its new function (re-parsing a large module cost ~8 ms)."""
    tree = parse_python(source, filename)
    return {(n.lineno, n.name): n for n in ast.walk(tree) if isinstance(n, FuncDef)}


def find_def(tree: ast.Module, qualname: str, def_line: int) -> FuncDef:
    """The ``def`` node of ``qualname`` at ``def_line``."""
    name = qualname.rsplit(".", 1)[-1]
    for node in ast.walk(tree):
        if isinstance(node, FuncDef) and node.lineno == def_line and node.name == name:
            return node
    raise SwapError(f"no def of {qualname} at line {def_line}")


def class_of(qualname: str) -> str | None:
    """The class a method's qualified name puts it in (for private-name mangling)."""
    parts = qualname.split(".")
    return parts[-2] if len(parts) > 1 and parts[-2] != "<locals>" else None


# -- compiling ---------------------------------------------------------------------------


def compile_like(
    funcdef: FuncDef, freevars: Sequence[str], filename: str, class_name: str | None = None
) -> types.CodeType:
    """Compile ``funcdef`` into a code object whose free variables are exactly ``freevars``.

    The function is nested in an outer function that binds every free variable (so they
    stay free, in the sorted order CPython uses), and in a class named ``class_name`` when
    given, so private names are mangled as in the real class. Every free variable is
    referenced from dead code (``if 0:``), so a body that does not use them still has them.
    """
    funcdef = strip(funcdef)
    if freevars:
        funcdef.body = [_keep_alive(freevars), *funcdef.body]
    binds: list[ast.stmt] = [
        ast.Assign(targets=[ast.Name(id=var, ctx=ast.Store())], value=ast.Constant(None))
        for var in freevars
        if var != "__class__"
    ]
    if class_name is not None and class_name not in freevars:
        # The holder class binds its name in the outer function: a method that names its
        # own class (``Cache.getsizeof``) would read it as a free variable, not a global.
        binds.insert(0, ast.Global(names=[class_name]))
    holder: ast.stmt = funcdef
    if class_name is not None or "__class__" in freevars:
        holder = ast.ClassDef(
            name=class_name or _CLASS,
            bases=[],
            keywords=[],
            body=[funcdef],
            decorator_list=[],
            **_TYPE_PARAMS,
        )
    outer = ast.FunctionDef(
        name=_OUTER,
        args=ast.arguments(
            posonlyargs=[],
            args=[],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        ),
        body=[*binds, holder],
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
    if found.co_freevars != tuple(freevars):
        raise SwapError(
            f"{funcdef.name}: free variables {found.co_freevars} differ from {tuple(freevars)}"
        )
    return found


def _keep_alive(names: Sequence[str]) -> ast.stmt:
    """``if 0: (a, b)``: no code is generated, but the names are referenced (so free)."""
    load = ast.Load()
    use = ast.Expr(ast.Tuple([ast.Name(name, load) for name in names], load))
    return ast.If(test=ast.Constant(0), body=[use], orelse=[])


def strip(funcdef: FuncDef) -> FuncDef:
    """A copy without decorators, annotations and default expressions.

    Defaults live on the function object (kept across a ``__code__`` swap), so their
    expressions need not be evaluated again; annotations could name things not in scope.
    ``async def`` stays async so a coroutine function stays one.
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
    copy = type(funcdef)(
        name=funcdef.name,
        args=new_args,
        body=list(funcdef.body),
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


def replacement_code(
    funcdef: FuncDef,
    body: str,
    filename: str,
    freevars: Sequence[str] = (),
    class_name: str | None = None,
) -> types.CodeType:
    """Code of ``funcdef`` with its whole body replaced by ``body`` (e.g. ``return 0``,
    ``pass``) and exactly ``freevars`` as free variables, so it can replace the code of
    a closure or of a method using ``super()``."""
    try:
        new_body = ast.parse(body.replace("; ", "\n")).body
    except SyntaxError as exc:
        raise SwapError(f"transformation body does not parse: {body!r}") from exc
    first = funcdef.body[0].lineno if funcdef.body else funcdef.lineno
    for stmt in new_body:
        ast.increment_lineno(stmt, first - 1)
    replaced = ast.copy_location(
        type(funcdef)(
            name=funcdef.name,
            args=funcdef.args,
            body=new_body or [ast.Pass()],
            decorator_list=[],
            returns=None,
            **_TYPE_PARAMS,
        ),
        funcdef,
    )
    return compile_like(replaced, freevars, filename, class_name)


# -- swapping ----------------------------------------------------------------------------


Replacements = list[tuple[types.FunctionType, types.CodeType]]
"""Each live function with the code it is to run (``replacements``, ``apply``)."""


def swap(functions: Sequence[types.FunctionType], code: types.CodeType) -> None:
    """Give every function in ``functions`` the new code (in this process only); the
    functions keep their first line and qualified name, so reports still name them."""
    apply(fitted(functions, code))


def fitted(functions: Sequence[types.FunctionType], code: types.CodeType) -> Replacements:
    """``code`` made to fit each of ``functions``: same free variables (else ``SwapError``),
    its first line and qualified name, so reports still name it."""
    if not functions:
        raise SwapError("the function is not in memory after collection (imported lazily?)")
    pairs: Replacements = []
    for function in functions:
        old = function.__code__
        if old.co_freevars != code.co_freevars:
            raise SwapError(
                f"{function.__qualname__} has free variables {old.co_freevars}, "
                f"the new code {code.co_freevars}"
            )
        new = code.replace(co_firstlineno=old.co_firstlineno)
        if hasattr(old, "co_qualname"):
            new = new.replace(**{"co_qualname": old.co_qualname})
        pairs.append((function, new))
    return pairs


def apply(pairs: Replacements) -> None:
    """Swap the code of each function of ``pairs`` for its new code (in this process)."""
    for function, new in pairs:
        try:
            function.__code__ = new
        except (ValueError, TypeError) as exc:
            raise SwapError(f"cannot swap the code of {function.__qualname__}: {exc}") from exc


def swap_body(functions: Sequence[types.FunctionType], funcdef: FuncDef, body: str) -> None:
    """Replace the body of every function in ``functions`` (the live objects of
    ``funcdef``) by ``body``, whatever free variables each has."""
    apply(replacements(functions, funcdef, body))


def replacements(
    functions: Sequence[types.FunctionType], funcdef: FuncDef, body: str
) -> Replacements:
    """The new code of each function in ``functions`` (the live objects of ``funcdef``)
    with its body replaced by ``body``, compiled but not swapped in: a worker compiles
    once, before it forks, and each child only swaps (compiling in the child cost about a
    millisecond, most of it in memory pages copied on write)."""
    if not functions:
        raise SwapError("the function is not in memory after collection (imported lazily?)")
    compiled: dict[tuple[str, ...], types.CodeType] = {}
    pairs: Replacements = []
    for function in functions:
        old = function.__code__
        code = compiled.get(old.co_freevars)
        if code is None:
            code = compiled[old.co_freevars] = replacement_code(
                funcdef, body, old.co_filename, old.co_freevars, class_of(function.__qualname__)
            )
        pairs += fitted([function], code)
    return pairs


def copy_function(fn: types.FunctionType, code: types.CodeType | None = None) -> types.FunctionType:
    """A new function object running ``code`` (default: ``fn``'s) with ``fn``'s context:
    globals, closure, defaults, qualified name and attributes."""
    copy = types.FunctionType(
        code or fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
    )
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__
    copy.__dict__.update(fn.__dict__)
    return copy


def import_path(path: str) -> None:
    """Import the module stored at ``path`` by the name a ``sys.path`` entry gives it."""
    best = ""
    for entry in sys.path:
        base = os.path.realpath(entry or os.getcwd()) + os.sep
        if path.startswith(base) and len(base) > len(best):
            best = base
    if not best:
        return
    rel = path[len(best) : -len(".py")].replace(os.sep, ".")
    if rel.endswith(".__init__"):
        rel = rel[: -len(".__init__")]
    # A module that fails to import simply has no live functions to transform.
    with contextlib.suppress(BaseException):
        importlib.import_module(rel)
