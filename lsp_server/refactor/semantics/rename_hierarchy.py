"""The class hierarchy of a renamed member, as rope's objects and the files' syntax trees
see it.

rope renames overrides only for plain methods (``in_hierarchy``); a property, a class
attribute or an instance attribute defined again in a base class or a subclass keeps its
old name, and the program then finds the other definition. Here the classes that define
the member in the same hierarchy are found, so that every definition is renamed, and a
new name that some class of that hierarchy already defines is refused.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from rope.base import pyobjects
from rope.base.resources import File

from lsp_server.project.text import line_starts, parse_python
from lsp_server.refactor.model import RefactoringError

ClassKey = tuple[str, int]
"""(rope path of the file, line of the ``class`` statement)."""


def _walk_outside_classes(node: ast.AST) -> list[ast.AST]:
    """``node`` and what it holds, nested class bodies left out (their names are theirs)."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(node))
    while todo:
        child = todo.pop()
        out.append(child)
        if not isinstance(child, ast.ClassDef):
            todo.extend(ast.iter_child_nodes(child))
    return out


def members(cls: ast.ClassDef) -> set[str]:
    """Names a class body defines: functions, assignments, ``self.x = ...`` in methods."""
    names: set[str] = set()
    for statement in cls.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
            if isinstance(statement, ast.ClassDef):
                continue
            names |= {
                n.attr
                for n in _walk_outside_classes(statement)
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
            }
            continue
        for node in [statement, *_walk_outside_classes(statement)]:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


def ancestors(pyclass: Any) -> list[Any]:
    """Every base class of ``pyclass``, transitively (rope objects)."""
    seen: list[Any] = []
    todo = list(pyclass.get_superclasses()) if hasattr(pyclass, "get_superclasses") else []
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.append(cls)
        if hasattr(cls, "get_superclasses"):
            todo.extend(cls.get_superclasses())
    return seen


def class_key(cls: Any) -> ClassKey | None:
    try:
        resource = cls.get_module().get_resource()
        node = cls.get_ast()
    except (AttributeError, TypeError):
        return None
    if resource is None or node is None:
        return None
    return (resource.path, node.lineno)


def home_class(pyname: Any) -> Any | None:
    """The rope class whose body defines ``pyname`` (None: not a class member)."""
    if pyname is None:
        return None
    module, line = pyname.get_definition_location()
    if module is None or line is None:
        return None
    scope = module.get_scope().get_inner_scope_for_line(line)
    if scope is not None and scope.pyobject is pyname.get_object():
        scope = scope.parent  # a def or class line belongs to its own body's scope
    while scope is not None and not isinstance(scope.pyobject, pyobjects.AbstractClass):
        if scope.get_kind() == "Module":
            return None
        scope = scope.parent
    return scope.pyobject if scope is not None else None


@dataclass
class Hierarchy:
    """Every class of the searched files with its syntax node, rope object and bases."""

    project: Any
    nodes: dict[ClassKey, tuple[File, ast.ClassDef]] = field(default_factory=dict)
    objects: dict[ClassKey, Any] = field(default_factory=dict)
    bases: dict[ClassKey, set[ClassKey]] = field(default_factory=dict)

    @classmethod
    def of(cls, project: Any, files: list[File]) -> Hierarchy:
        found = cls(project)
        for resource in files:
            try:
                tree = parse_python(resource.read())
            except (SyntaxError, ValueError):
                continue
            classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
            if not classes:
                continue
            scope = project.get_pymodule(resource).get_scope()
            for node in classes:
                pyclass = scope.get_inner_scope_for_line(node.lineno).pyobject
                if not isinstance(pyclass, pyobjects.AbstractClass):
                    continue
                key = (resource.path, node.lineno)
                found.nodes[key] = (resource, node)
                found.objects[key] = pyclass
                found.bases[key] = {k for k in map(class_key, ancestors(pyclass)) if k}
        return found

    def defines(self, key: ClassKey, name: str) -> bool:
        entry = self.nodes.get(key)
        return entry is not None and name in members(entry[1])

    def roots(self, key: ClassKey, name: str) -> set[ClassKey]:
        """The topmost classes at or above ``key`` that define ``name``."""
        chain = [key, *self.bases.get(key, set())]
        defining = [k for k in chain if self.defines(k, name)]
        return {
            k for k in defining if not any(self.defines(b, name) for b in self.bases.get(k, ()))
        }

    def related(self, home: ClassKey, name: str) -> list[ClassKey]:
        """Classes defining ``name`` that share a root definition with ``home``'s."""
        home_roots = self.roots(home, name) or {home}
        return [
            key
            for key in self.nodes
            if self.defines(key, name) and (key == home or self.roots(key, name) & home_roots)
        ]

    def below_or_above(self, keys: list[ClassKey]) -> set[ClassKey]:
        """``keys``, their bases and every class deriving from one of them."""
        out = set(keys)
        for key in keys:
            out |= self.bases.get(key, set())
        out |= {k for k, bases in self.bases.items() if bases & set(keys)}
        return out

    def check_new_name(self, related: list[ClassKey], new: str, relpath: Any) -> None:
        """Refuse when a class in the hierarchy of ``related`` already defines ``new``."""
        for key in sorted(self.below_or_above(related)):
            if self.defines(key, new):
                resource, node = self.nodes[key]
                raise RefactoringError(
                    f"`{new}` is already defined in class `{node.name}` "
                    f"({relpath(resource.real_path)}:{node.lineno}), in the hierarchy of the "
                    "renamed member: the program would find the other definition"
                )


def _definition_offset(text: str, starts: list[int], cls: ast.ClassDef, name: str) -> int | None:
    """Offset of the first definition of member ``name`` in the body of ``cls``."""
    for node in [cls, *ast.walk(cls)]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            line_start = starts[node.lineno - 1]
            found = text.find(name, line_start + node.col_offset)
            return found if found >= 0 else None
        if not isinstance(node, (ast.Name, ast.Attribute)) or not isinstance(node.ctx, ast.Store):
            continue
        spelled = node.id if isinstance(node, ast.Name) else node.attr
        if spelled == name and node.end_col_offset is not None and node.end_lineno == node.lineno:
            end = starts[node.lineno - 1] + node.end_col_offset  # ASCII names only
            if text[end - len(name) : end] == name:
                return end - len(name)
    return None


def definition_of_unresolved(
    project: Any, files: list[File], name: str, relpath: Any
) -> tuple[File, int]:
    """Where to rename member ``name`` from when the place asked (``obj.name`` with an
    unknown ``obj``, ``getattr(obj, "name")``) cannot be resolved: the root definition, if
    every class defining ``name`` is in one hierarchy. Refuses naming the classes if not."""
    hierarchy = Hierarchy.of(project, files)
    defining = sorted(k for k in hierarchy.nodes if hierarchy.defines(k, name))
    if not defining:
        raise RefactoringError(f"cannot tell what `{name}` is here: no class defines it")
    related = set(hierarchy.related(defining[0], name))
    if not set(defining) <= related:
        places = ", ".join(
            f"`{hierarchy.nodes[k][1].name}` ({relpath(hierarchy.nodes[k][0].real_path)}:{k[1]})"
            for k in defining
        )
        raise RefactoringError(
            f"cannot tell which `{name}` is meant here: the classes {places} define it; "
            "rename it at its definition"
        )
    root = min(hierarchy.roots(defining[0], name) or {defining[0]})
    resource, node = hierarchy.nodes[root]
    text = resource.read()
    offset = _definition_offset(text, line_starts(text), node, name)
    if offset is None:
        raise RefactoringError(f"cannot find the definition of `{name}` in `{node.name}`")
    return resource, offset
