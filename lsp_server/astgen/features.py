"""Static features of a refactoring request: the constructs near the target that make
engines fail (``getattr`` by name, ``super()`` calls, augmented assignment in a selection,
...). The same detector describes generated programs (to learn failing shapes) and the
user's code (to match them), so shapes and requests speak the same vocabulary."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping

from lsp_server.project.text import identifier_at, line_starts

_INTROSPECTION = {"getattr", "setattr", "hasattr", "delattr"}


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _ancestors(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> Iterator[ast.AST]:
    while node in parents:
        node = parents[node]
        yield node


def _span(node: ast.AST, starts: list[int]) -> tuple[int, int]:
    start = starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
    end = starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
    return start, end


def features(kind: str, source: str, offset: int, end: int | None = None) -> frozenset[str]:
    """The features of performing ``kind`` at ``offset`` (..``end``) of ``source``; empty
    when the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    if kind == "rename":
        return frozenset(_rename(tree, identifier_at(source, offset)))
    if kind == "extract-method" and end is not None:
        return frozenset(_extract_method(tree, source, offset, end))
    if kind == "extract-variable" and end is not None:
        return frozenset(_extract_variable(tree, source, offset, end))
    if kind == "inline":
        return frozenset(_inline(tree, identifier_at(source, offset)))
    return frozenset()


def _class_bases(tree: ast.AST) -> dict[str, set[str]]:
    return {
        node.name: {b.id for b in node.bases if isinstance(b, ast.Name)}
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }


def _rename(tree: ast.AST, name: str) -> Iterator[str]:
    if not name:
        return
    parents = _parents(tree)
    defining: list[str] = []  # classes defining ``name`` as a member
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            if node.name == name:
                yield "target:class"
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                    defining.append(node.name)
                    yield "target:method"
                    for deco in item.decorator_list:
                        deco_name = deco.id if isinstance(deco, ast.Name) else "other"
                        known = {"property", "staticmethod", "classmethod"}
                        yield f"decorator:{deco_name if deco_name in known else 'other'}"
                elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                        defining.append(node.name)
                        yield "target:class-attribute"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name == name and not isinstance(parents.get(node), ast.ClassDef):
                yield "target:function"
            if any(a.arg == name for a in node.args.args + node.args.kwonlyargs):
                yield "target:parameter"
        elif isinstance(node, ast.Attribute) and node.attr == name:
            yield from _attribute_use(node, parents)
        elif isinstance(node, ast.Name) and node.id == name:
            for up in _ancestors(node, parents):
                if isinstance(up, ast.JoinedStr):
                    yield "use:fstring"
                if isinstance(up, ast.Lambda):
                    yield "use:lambda"
        elif isinstance(node, ast.Call):
            func = node.func
            if (
                isinstance(func, ast.Name)
                and func.id in _INTROSPECTION
                and any(isinstance(a, ast.Constant) and a.value == name for a in node.args)
            ):
                yield "use:getattr-string"
            if any(k.arg == name for k in node.keywords):
                yield "use:keyword-argument"
        elif isinstance(node, ast.alias) and name in (node.name, node.asname):
            yield "import:aliased" if node.asname else "import:plain"
    bases = _class_bases(tree)
    for cls in defining:
        for other in (o for o in defining if o != cls):
            if cls in _all_bases(other, bases):
                yield "hierarchy:redefined-in-subclass"
            elif other not in _all_bases(cls, bases):
                yield "hierarchy:same-name-unrelated-class"


def _all_bases(cls: str, bases: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(bases.get(cls, ()))
    while todo:
        base = todo.pop()
        if base not in seen:
            seen.add(base)
            todo.extend(bases.get(base, ()))
    return seen


def _attribute_use(node: ast.Attribute, parents: dict[ast.AST, ast.AST]) -> Iterator[str]:
    value = node.value
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "super"
    ):
        yield "use:super-call"
    elif isinstance(value, ast.Name) and value.id not in ("self", "cls"):
        for up in _ancestors(node, parents):
            if isinstance(up, (ast.FunctionDef, ast.Lambda)):
                args = up.args.args + up.args.kwonlyargs
                if any(a.arg == value.id for a in args):
                    yield "use:attribute-of-parameter"
                break
    parent = parents.get(node)
    is_self = isinstance(value, ast.Name) and value.id == "self"
    if isinstance(parent, ast.Assign) and node in parent.targets and is_self:
        yield "target:instance-attribute"
    if isinstance(parent, ast.AugAssign) and parent.target is node:
        yield "use:augmented-assignment"
    for up in _ancestors(node, parents):
        if isinstance(up, ast.JoinedStr):
            yield "use:fstring"
        elif isinstance(up, ast.Lambda):
            yield "use:lambda"
        elif isinstance(up, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            yield "use:comprehension"
        elif isinstance(up, ast.arguments):
            yield "use:default-value"
        elif isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if isinstance(parents.get(up), (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield "use:closure"
            break


def _enclosing_function(tree: ast.AST, start: int, end: int, starts: list[int]) -> ast.AST:
    best: ast.AST = tree
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a, b = _span(node, starts)
            if a <= start and end <= b:
                best = node
    return best


def _names(node: ast.AST, store: bool) -> set[str]:
    kind = ast.Store if store else ast.Load
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, kind)}


def _extract_method(tree: ast.AST, source: str, start: int, end: int) -> Iterator[str]:
    starts = line_starts(source)
    function = _enclosing_function(tree, start, end, starts)
    selected = [
        n
        for n in ast.walk(function)
        if isinstance(n, ast.stmt) and n is not function
        and start <= _span(n, starts)[0] and _span(n, starts)[1] <= end
    ]  # fmt: skip
    if not selected:
        yield "selection:partial"
        return
    written: set[str] = set()
    for stmt in selected:
        written |= _names(stmt, store=True)
        name = type(stmt).__name__.lower()
        if isinstance(stmt, ast.AugAssign):
            yield "selection:augmented-assignment"
        elif isinstance(stmt, (ast.Return, ast.Break, ast.Continue, ast.For, ast.While, ast.If)):
            yield f"selection:{name}"
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                yield "selection:yield"
    after = [
        n for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        and starts[n.lineno - 1] + n.col_offset >= end
    ]  # fmt: skip
    live_out = written & {n.id for n in after}
    yield "selection:live-out" if live_out else "selection:no-live-out"
    parents = _parents(tree)
    if any(isinstance(up, (ast.For, ast.While)) for up in _ancestors(selected[0], parents)):
        yield "selection:inside-loop"


def _extract_variable(tree: ast.AST, source: str, start: int, end: int) -> Iterator[str]:
    starts = line_starts(source)
    parents = _parents(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.expr) and _span(node, starts) == (start, end):
            yield f"expression:{type(node).__name__.lower()}"
            child: ast.AST = node
            for up in _ancestors(node, parents):
                if isinstance(up, ast.While) and child is up.test:
                    yield "expression:loop-condition"
                if isinstance(up, (ast.For, ast.While)) and child in up.body:
                    yield "expression:in-loop-body"
                child = up
            return
    yield "expression:partial"


def assigned_anywhere(tree: ast.AST) -> list[ast.Name]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _inline(tree: ast.AST, name: str) -> Iterator[str]:
    parents = _parents(tree)
    assigned = [
        n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        and n.id == name
    ]  # fmt: skip
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]
    if functions:
        yield "inline:function"
    if assigned:
        yield "inline:variable"
        if len(assigned) > 1:
            yield "inline:assigned-twice"
        definition = parents.get(assigned[0])
        if isinstance(definition, ast.Assign):
            inputs = _names(definition.value, store=False)
            later = [
                n
                for n in assigned_anywhere(tree)
                if n.id in inputs and n.lineno > definition.lineno
            ]
            if later:
                yield "inline:input-rebound"
            if isinstance(definition.value, (ast.BinOp, ast.BoolOp, ast.Compare)):
                yield "inline:compound-value"
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id == name:
            parent = parents.get(node)
            if isinstance(parent, ast.BinOp):
                yield "inline:use-in-operation"
            if isinstance(parent, ast.Call) and parent.func is node:
                grand = parents.get(parent)
                if isinstance(grand, (ast.BinOp, ast.BoolOp, ast.Compare)):
                    yield "inline:call-in-expression"
                if parent.keywords:
                    yield "inline:keyword-call"
            for up in _ancestors(node, parents):
                if isinstance(up, ast.JoinedStr):
                    yield "inline:use-in-fstring"
                elif isinstance(up, (ast.For, ast.While)):
                    yield "inline:use-in-loop"
                elif isinstance(up, ast.keyword):
                    yield "inline:use-as-keyword-value"
                elif isinstance(up, ast.FunctionDef) and up.name != name:
                    if isinstance(parents.get(up), ast.FunctionDef):
                        yield "inline:use-in-closure"
                    break


def _module_parts(path: str) -> list[str]:
    parts = path[: -len(".py")].split("/") if path.endswith(".py") else path.split("/")
    if parts and parts[-1] == "__init__":
        parts.pop()
    return parts


def module_names(path: str, files: Collection[str]) -> set[str]:
    """The dotted names the module at root-relative ``path`` may be imported by: its whole
    path, and the part below any folder that is not a package (``src/``, a ``tests/``
    folder pytest puts on ``sys.path``)."""
    parts = _module_parts(path)
    return {
        ".".join(parts[i:])
        for i in range(len(parts))
        if i == 0 or "/".join(parts[:i]) + "/__init__.py" not in files
    }


def _relative_base(importer: str, level: int) -> list[str]:
    """The package folder (as parts) a ``level``-dot relative import in ``importer`` starts
    from."""
    folder = importer.split("/")[:-1]
    return folder[: len(folder) - (level - 1)] if level - 1 <= len(folder) else []


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def lists_in_all(tree: ast.Module, name: str) -> bool:
    """Does a module-level ``__all__`` assignment (plain, augmented, annotated) spell
    ``name``? (rope renames code, not the strings of ``__all__``.)"""
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AugAssign, ast.AnnAssign))
            else []
        )
        value = getattr(node, "value", None)
        if (
            value is not None
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
            and any(isinstance(c, ast.Constant) and c.value == name for c in ast.walk(value))
        ):
            return True
    return False


def client_features(files: Mapping[str, str], path: str, name: str) -> frozenset[str]:
    """How the other modules of a project (``files``: root-relative path -> text) refer to
    global ``name`` of the module at ``path``, the features of moving it:

    ``client:from-import`` (``from m import f``), ``client:from-import-as`` (``from m import
    f as g``), ``client:relative-import`` (``from .m import f``, ``from . import m``),
    ``client:module-attribute`` (``import m`` then ``m.f``), ``client:star-import``,
    ``client:reexport`` (a package ``__init__`` imports it), ``client:all`` (a client lists
    it in ``__all__``); ``client:none`` when no other module does. Only files whose text
    mentions the module's own name are parsed."""
    if not name or not _module_parts(path):
        return frozenset()
    parts, dotted = _module_parts(path), module_names(path, files)
    found: set[str] = set()
    for other, tree in _client_trees(files, path, name):
        found |= _client(tree, other, parts, dotted, name)
    return frozenset(found or {"client:none"})


def _client_trees(
    files: Mapping[str, str], path: str, name: str
) -> Iterator[tuple[str, ast.Module]]:
    """(path, tree) of the other Python ``files`` that may refer to ``name`` of the module
    at ``path``, in path order: only those whose text mentions both are parsed."""
    stem = _module_parts(path)[-1]
    for other in sorted(files):
        text = files[other]
        if other == path or not other.endswith(".py") or stem not in text or name not in text:
            continue
        try:
            yield other, ast.parse(text)
        except (SyntaxError, ValueError):
            continue


def _imported_module(node: ast.ImportFrom, importer: str) -> tuple[list[str], bool]:
    """The module a ``from ... import`` in ``importer`` imports from, as parts, and whether
    the import is relative (the parts are then a path from the root)."""
    if node.level:
        base = _relative_base(importer, node.level)
        return base + (node.module.split(".") if node.module else []), True
    return (node.module or "").split("."), False


def client_imports(files: Mapping[str, str], path: str, name: str) -> Iterator[tuple[str, int]]:
    """(path, line) of every ``from <module at path> import name`` (aliased or relative
    too) in the other ``files``, in path order."""
    parts = _module_parts(path)
    if not parts or not name:
        return
    dotted = module_names(path, files)
    for other, tree in _client_trees(files, path, name):
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and _names_module(*_imported_module(node, other), parts, dotted)
                and any(alias.name == name for alias in node.names)
            ):
                yield other, node.lineno


def _names_module(module: list[str], relative: bool, parts: list[str], dotted: set[str]) -> bool:
    """Is ``module`` (from ``_imported_module``) the module whose path is ``parts`` and
    whose dotted names are ``dotted``?"""
    return module == parts if relative else ".".join(module) in dotted


def _client(
    tree: ast.Module, other: str, parts: list[str], dotted: set[str], name: str
) -> set[str]:
    found: set[str] = set()
    modules: set[str] = set()  # local dotted names bound to the module
    relative_modules: set[str] = set()  # ... by a relative import
    imports_name = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in dotted:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.ImportFrom):
            module, relative = _imported_module(node, other)
            is_module = _names_module(module, relative, parts, dotted)
            for alias in node.names:
                if is_module and alias.name == name:
                    imports_name = True
                    if relative:
                        found.add("client:relative-import")
                        if alias.asname and alias.asname != name:
                            found.add("client:from-import-as")
                    elif alias.asname and alias.asname != name:
                        found.add("client:from-import-as")
                    else:
                        found.add("client:from-import")
                elif is_module and alias.name == "*":
                    imports_name = True
                    found.add("client:star-import")
                elif _names_module([*module, alias.name], relative, parts, dotted):
                    modules.add(alias.asname or alias.name)
                    if relative:
                        relative_modules.add(alias.asname or alias.name)
    if modules:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == name:
                bound = _dotted(node.value)
                if bound in modules:
                    found.add("client:module-attribute")
                if bound in relative_modules:
                    found.add("client:relative-import")
    if imports_name:
        if other.endswith("__init__.py"):
            found.add("client:reexport")
        if lists_in_all(tree, name):
            found.add("client:all")
    return found


def request_features(
    kind: str,
    source: str,
    offset: int,
    end: int | None = None,
    files: Mapping[str, str] | None = None,
    path: str | None = None,
) -> frozenset[str]:
    """``features``, plus for a ``move`` of a global with the project's ``files`` (before
    the move) and the source ``path``: how its clients refer to it (``client_features``)."""
    found = features(kind, source, offset, end)
    if kind == "move" and files is not None and path is not None:
        found |= client_features(files, path, identifier_at(source, offset))
    return found
