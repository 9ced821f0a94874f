"""Discovery of the functions to transform, from source, and the rules that skip some.

Functions are the units of ``lsp_server.rts.units`` (top-level functions and methods;
nested functions belong to their enclosing unit and are not transformed on their own).
A function is skipped, with a reason, when developers do not test it directly: see
``skip_reason``. Which bodies replace a function's body is decided here when the return
annotation says so; otherwise after the observation run (``constants.bodies_for_kinds``).
"""

from __future__ import annotations

import ast
import builtins
import fnmatch
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from lsp_server.extreme.constants import EMPTY_GENERATOR, bodies_from_annotation
from lsp_server.project import load_config
from lsp_server.project.files import is_test_path, walk_files
from lsp_server.project.text import parse_python
from lsp_server.rts.analysis_cache import cached_source_units, kept_or_new_units
from lsp_server.rts.file_snapshot import file_checksum
from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.units import SourceError, tokenize_decode

NO_EXTREME = "reks: no-extreme"
"""A comment on (or just above) a ``def`` line that excludes the function."""

_NOT_SOURCE = {"conftest.py", "setup.py", "noxfile.py", "fabfile.py", "__main__.py"}


@dataclass(frozen=True)
class FunctionInfo:
    """A function found in the source, with what the analysis needs to transform it."""

    path: str  # POSIX, relative to the project root
    qualname: str  # unit name, e.g. "VersionedSet.add"
    line: int  # line of the ``def``
    first_line: int  # first decorator, or the ``def`` line
    checksum: str  # the unit's checksum (for incremental runs)
    is_generator: bool
    is_async: bool
    annotated_bodies: tuple[str, ...] | None  # from the return annotation; None: ask the tests
    skip: str = ""  # why it is not transformed; empty when it is

    @property
    def key(self) -> str:
        return f"{self.path}::{self.qualname}"


def source_files(root: Path, paths: Sequence[Path] = ()) -> list[str]:
    """Python source files (not tests) under ``paths`` (default: the whole root), relative."""
    root = root.resolve()
    starts = [p if p.is_absolute() else root / p for p in paths] or [root]
    found: set[str] = set()
    for start in starts:
        start = start.resolve()
        if not start.exists():
            raise FileNotFoundError(f"no such file or directory: {start}")
        if start.is_file():
            candidates: Iterable[Path] = [start]
        else:
            candidates = walk_files(start, root)
        for file in candidates:
            try:
                rel = file.relative_to(root).as_posix()
            except ValueError as exc:
                raise ValueError(f"{file} is outside the project root {root}") from exc
            if file.suffix == ".py" and file.name not in _NOT_SOURCE and not is_test_path(rel):
                found.add(rel)
    return sorted(found)


def discover(
    root: Path, files: Iterable[str], patterns: Sequence[str] = ()
) -> tuple[list[FunctionInfo], dict[str, str]]:
    """Functions of ``files`` (relative paths) and a map file -> error for files that do not
    parse (they are reported, not fatal)."""
    functions: list[FunctionInfo] = []
    errors: dict[str, str] = {}
    for rel in files:
        try:
            data = (root / rel).read_bytes()
            source = tokenize_decode(data)
            kept = partial(kept_or_new_units, root, rel, data, file_checksum(data))
            functions.extend(functions_of_source(rel, source, patterns, kept))
        except (OSError, SourceError, SyntaxError, UnicodeDecodeError) as exc:
            errors[rel] = str(exc)
    return functions, errors


_FOUND: dict[tuple[str, str, tuple[str, ...]], list[FunctionInfo]] = {}
"""Functions by (path, source, patterns), kept by a long-lived process (the server): an
analysis after an edit parses only the edited files again."""
_FOUND_MAX = 2_000


def functions_of_source(
    rel: str,
    source: str,
    patterns: Sequence[str] = (),
    analysed: Callable[[], FileUnits] | None = None,
) -> list[FunctionInfo]:
    """The functions of ``source``; ``analysed`` gives its units when they are not
    memoized (the analysis a ``pytest --reks`` session kept: no parse), else it is parsed."""
    key = (rel, source, tuple(patterns))
    found = _FOUND.get(key)
    if found is None:
        if len(_FOUND) >= _FOUND_MAX:
            _FOUND.clear()
        units = analysed() if analysed is not None else cached_source_units(rel, source)
        found = _FOUND[key] = _functions_of_source(rel, source, units, patterns)
    return list(found)


def _functions_of_source(
    rel: str, source: str, units: FileUnits, patterns: Sequence[str] = ()
) -> list[FunctionInfo]:
    tree = parse_python(source)
    lines = source.splitlines()
    module_names = _module_level_names(tree)
    out: list[FunctionInfo] = []
    seen: set[str] = set()
    for qualname, node, in_class in _defs(tree):
        span = units.spans.get(qualname)
        if span is None or qualname in seen:
            # A redefinition (a property setter, a conditional second version) shares the
            # unit name of the first; units track the name once, and so do we.
            continue
        seen.add(qualname)
        first_line = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        generator = _is_generator(node)
        annotated = bodies_from_annotation(node.returns)
        if generator:
            annotated = [EMPTY_GENERATOR]
        reason = skip_reason(node, qualname, in_class, lines, module_names, patterns, rel)
        if not reason and annotated == []:
            reason = "annotated as never returning"
        out.append(
            FunctionInfo(
                path=rel,
                qualname=qualname,
                line=node.lineno,
                first_line=first_line,
                checksum=units.checksums[qualname],
                is_generator=generator,
                is_async=isinstance(node, ast.AsyncFunctionDef),
                annotated_bodies=tuple(annotated) if annotated is not None else None,
                skip=reason,
            )
        )
    return out


_FuncDef = ast.FunctionDef | ast.AsyncFunctionDef


def _defs(tree: ast.Module) -> list[tuple[str, _FuncDef, bool]]:
    """Every unit-level ``def`` with its qualified name (same walk as the units module)."""
    out: list[tuple[str, _FuncDef, bool]] = []

    def visit(body: Iterable[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((prefix + node.name, node, in_class))
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.", True)
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.While)):
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.ExceptHandler):
                        visit(child.body, prefix, in_class)
                visit(getattr(node, "body", []), prefix, in_class)
                visit(getattr(node, "orelse", []), prefix, in_class)
                visit(getattr(node, "finalbody", []), prefix, in_class)

    visit(tree.body, "", False)
    return out


def _is_generator(node: _FuncDef) -> bool:
    """A ``yield`` in the function's own body (not in nested functions or lambdas)."""
    stack: list[ast.AST] = list(node.body)
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(current))
    return False


def _module_level_names(tree: ast.Module) -> set[str]:
    """Names bound at module level (they shadow builtins)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
    return names


# -- skip rules ---------------------------------------------------------------------------


def skip_reason(
    node: _FuncDef,
    qualname: str,
    in_class: bool,
    lines: Sequence[str],
    module_names: set[str],
    patterns: Sequence[str] = (),
    rel: str = "",
) -> str:
    """Why ``node`` is not transformed, or "" when it is. First matching rule wins."""
    if _has_marker(node, lines):
        return f"marked '# {NO_EXTREME}'"
    for pattern in patterns:
        if fnmatch.fnmatchcase(qualname, pattern) or fnmatch.fnmatchcase(
            f"{rel}::{qualname}", pattern
        ):
            return f"excluded by pattern {pattern!r}"
    decorators = {_decorator_name(d) for d in node.decorator_list}
    if "overload" in decorators:
        return "typing overload stub"
    if decorators & {"abstractmethod", "abstractproperty"}:
        return "abstract method"
    if "deprecated" in decorators or _warns_deprecation(node):
        return "deprecated"
    body = _without_docstring(node.body)
    if not body or all(_is_empty_statement(stmt) for stmt in body):
        return "empty body"
    if len(body) == 1 and _raises_not_implemented(body[0]):
        return "raises NotImplementedError"
    if node.name in ("__repr__", "__str__"):
        return f"{node.name} (not tested directly)"
    if len(body) != 1:
        return ""
    stmt = body[0]
    params = _params(node)
    self_name = params[0] if in_class and params and not _is_static(decorators) else None
    if isinstance(stmt, ast.Return) and stmt.value is not None:
        if _is_attribute_of(stmt.value, self_name) and (
            decorators & {"property", "cached_property"} or len(params) == 1
        ):
            return "getter returning one attribute"
        if _is_trivial_expression(stmt.value, set(params), self_name, module_names):
            return "returns an expression over its parameters and one attribute"
    if _is_setter(stmt, self_name, set(params)):
        return "setter of one attribute"
    call = stmt.value if isinstance(stmt, (ast.Return, ast.Expr)) else None
    if isinstance(call, ast.Call) and not any(
        isinstance(sub, ast.Call) for arg in (*call.args, *call.keywords) for sub in ast.walk(arg)
    ):
        return "delegates to one call"
    return ""


def _has_marker(node: _FuncDef, lines: Sequence[str]) -> bool:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    header_end = node.body[0].lineno - 1 if node.body else node.lineno
    for number in range(first - 1, max(header_end, node.lineno) + 1):
        if 1 <= number <= len(lines) and NO_EXTREME in lines[number - 1]:
            text = lines[number - 1]
            if number < first and not text.lstrip().startswith("#"):
                continue
            return True
    return False


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _is_static(decorators: set[str]) -> bool:
    return "staticmethod" in decorators


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[1:]
    return body


def _is_empty_statement(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Pass):
        return True
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _raises_not_implemented(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Raise) or stmt.exc is None:
        return False
    exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
    return isinstance(exc, ast.Name) and exc.id in ("NotImplementedError", "NotImplemented")


def _warns_deprecation(node: _FuncDef) -> bool:
    docstring = ast.get_docstring(node) or ""
    if ".. deprecated::" in docstring:
        return True
    for stmt in _without_docstring(node.body)[:1]:
        if (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and _decorator_name(stmt.value.func) == "warn"
        ):
            names = {
                n.id if isinstance(n, ast.Name) else n.attr
                for n in ast.walk(stmt.value)
                if isinstance(n, (ast.Name, ast.Attribute))
            }
            if names & {"DeprecationWarning", "PendingDeprecationWarning", "FutureWarning"}:
                return True
    return False


def _params(node: _FuncDef) -> list[str]:
    a = node.args
    names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    if a.vararg:
        names.append(a.vararg.arg)
    if a.kwarg:
        names.append(a.kwarg.arg)
    return names


def _is_attribute_of(expr: ast.expr, self_name: str | None) -> bool:
    return (
        self_name is not None
        and isinstance(expr, ast.Attribute)
        and isinstance(expr.value, ast.Name)
        and expr.value.id == self_name
    )


def _is_trivial_expression(
    expr: ast.expr, params: set[str], self_name: str | None, module_names: set[str]
) -> bool:
    """An expression over parameters and at most one attribute of self, calling nothing but
    builtins (so no project code can be hiding behind it)."""
    attributes: set[str] = set()
    for node in ast.walk(expr):
        if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return False
        if isinstance(node, ast.Attribute):
            if not _is_attribute_of(node, self_name):
                return False
            attributes.add(node.attr)
        elif isinstance(node, ast.Call):
            func = node.func
            if not (
                isinstance(func, ast.Name)
                and func.id not in module_names
                and func.id not in params
                and hasattr(builtins, func.id)
            ):
                return False
        elif isinstance(node, ast.Name):
            if node.id in params:
                continue
            if node.id in module_names or not hasattr(builtins, node.id):
                return False
    return len(attributes) <= 1


def _is_setter(stmt: ast.stmt, self_name: str | None, params: set[str]) -> bool:
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return False
    value_ok = (isinstance(stmt.value, ast.Name) and stmt.value.id in params) or isinstance(
        stmt.value, ast.Constant
    )
    return _is_attribute_of(stmt.targets[0], self_name) and value_ok


def config_patterns(root: Path) -> list[str]:
    """``[tool.reks.extreme] exclude = [...]`` from the project's pyproject.toml."""
    return load_config(root).strings("extreme", "exclude")
