"""Rename: locals, parameters, functions, methods (whole hierarchy), classes, attributes,
modules and packages.

Beyond rope: new names are checked first (identifier, keyword, clash in the defining
scope); files that do not parse are left out of the search and reported; renaming a method
renames the overrides in the hierarchy and, which rope misses, ``super().m(...)`` calls in
subclasses (``_rename_super_calls``).
"""

from __future__ import annotations

import ast
import os

from rope.base import pynames, pyobjects
from rope.base.change import ChangeContents, ChangeSet
from rope.base.resources import File, Folder, Resource
from rope.refactor.move import MoveModule
from rope.refactor.rename import Rename

from lsp_server.project.text import parse_python
from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.names import check_clash, check_identifier, check_module_name
from lsp_server.refactor.provenance import Hints, qualname_renamer


def _module_resource(resource: Resource) -> Resource:
    # A package is renamed through its folder, also when asked on its __init__.py.
    if isinstance(resource, File) and resource.name == "__init__.py" and resource.parent:
        return resource.parent
    return resource


def old_name(ctx: Context) -> str:
    """The name under the cursor that a rename would change (for prepareRename)."""
    rename = Rename(ctx.project, ctx.resource, ctx.offset)
    return str(rename.get_old_name())


def rename(ctx: Context) -> Planned:
    new_name = ctx.str_arg("new_name").strip()
    offset = None if ctx.arg("module", False) else ctx.offset
    resource = ctx.resource if offset is not None else _module_resource(ctx.resource)
    renamer = Rename(ctx.project, resource, offset)
    old = str(renamer.get_old_name())
    is_module = (
        offset is None
        or isinstance(renamer.old_pyname, pynames.ImportedModule)
        or (
            renamer.old_pyname is not None
            and isinstance(renamer.old_pyname.get_object(), pyobjects.AbstractModule)
        )
    )
    if is_module:
        check_module_name(new_name)
        new_name = new_name.removesuffix(".py")
        if "." in new_name:
            raise RefactoringError("give the new module name without dots; use move for that")
        target = _renamed_module(renamer)
        if target is not None:
            stem = new_name if target.is_folder() else new_name + ".py"
            dest = os.path.join(os.path.dirname(target.real_path), stem)
            if os.path.exists(dest):
                raise RefactoringError(f"{ctx.workspace.relpath(dest)} already exists")
    else:
        check_identifier(new_name)
        _check_clash(renamer, old, new_name)
    files, skipped = ctx.scope_files(old)
    own = _renamed_module(renamer) if is_module else None
    if own is not None:
        # rope moves the module only if the module itself is among the searched files.
        if own.is_folder():
            own = own.get_child("__init__.py") if own.has_child("__init__.py") else None
        if own is not None and own not in files:
            files.append(own)
    in_hierarchy = bool(renamer.is_method())
    unsure = None
    if not is_module and _unambiguous_member(ctx, renamer, files, old):
        # `obj.old` with `obj` of unknown type: rope calls these unsure and skips them,
        # which breaks the program. When no class outside the renamed one's hierarchy
        # defines `old`, such an occurrence can only be this member: rename it.
        unsure = _always
    changes = renamer.get_changes(
        new_name,
        in_hierarchy=in_hierarchy,
        unsure=unsure,
        resources=files,
        task_handle=ctx.job.handle,
    )
    if in_hierarchy:
        changes = _rename_super_calls(ctx, changes, files, old, new_name)
    hints = Hints(name_map=qualname_renamer(old, new_name))
    planned = Planned(changes, "rename", f"rename `{old}` -> `{new_name}`", hints, skipped)
    planned.verify_names = frozenset({old, new_name})
    return planned


def _renamed_module(renamer: Rename) -> Resource | None:
    """The file or package folder a module rename moves."""
    if renamer.old_pyname is not None:
        found = renamer.old_pyname.get_object().get_resource()
        if found is not None:
            return _module_resource(found)
    return renamer.resource


def _always(occurrence: object) -> bool:
    return True


def _unambiguous_member(ctx: Context, renamer: Rename, files: list[File], old: str) -> bool:
    """True if ``old`` is a member of a class and every class in ``files`` defining a member
    ``old`` is in the same hierarchy as that class."""
    pyname = renamer.old_pyname
    if pyname is None:
        return False
    module, line = pyname.get_definition_location()
    if module is None or line is None:
        return False
    scope = module.get_scope().get_inner_scope_for_line(line)
    while scope is not None and not isinstance(scope.pyobject, pyobjects.AbstractClass):
        scope = scope.parent
    if scope is None:
        return False
    home = scope.pyobject
    related = {_class_key(home)} | {_class_key(c) for c in _ancestors(home)}
    for resource in files:
        try:
            tree = parse_python(resource.read())
        except SyntaxError:
            continue
        pymodule = None
        for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]:
            if old not in _members(cls):
                continue
            key = (resource.path, cls.lineno)
            if key in related:
                continue
            pymodule = pymodule or ctx.project.get_pymodule(resource)
            other = pymodule.get_scope().get_inner_scope_for_line(cls.lineno).pyobject
            if not isinstance(other, pyobjects.AbstractClass):
                return False
            if not {_class_key(c) for c in _ancestors(other)} & related:
                return False
    return True


def _members(cls: ast.ClassDef) -> set[str]:
    names = {s.name for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _check_clash(renamer: Rename, old: str, new: str) -> None:
    pyname = renamer.old_pyname
    if pyname is None:
        raise RefactoringError("nothing to rename here")
    module, line = pyname.get_definition_location()
    if module is None or line is None:
        return  # builtins and unknown definitions: rope reports them
    resource = module.get_resource()
    if resource is None:
        raise RefactoringError(f"`{old}` is defined outside the project")
    is_attribute = isinstance(pyname, pynames.DefinedName) and isinstance(
        pyname.get_object(), pyobjects.PyFunction
    )
    is_attribute = is_attribute or isinstance(pyname, pynames.AssignedName)
    check_clash(resource.read(), line, old, new, is_attribute)


def _methods_of_classes(tree: ast.AST) -> dict[int, set[str]]:
    """Class definition line -> names of the methods it defines."""
    out: dict[int, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            out[node.lineno] = {
                s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
    return out


def _char_offset(lines: list[str], line: int, byte_col: int) -> int:
    """Offset into the joined text of 1-based ``line`` and the UTF-8 byte column ``col``."""
    prefix = sum(len(text) for text in lines[: line - 1])
    return prefix + len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def _rename_super_calls(
    ctx: Context, changes: ChangeSet, files: list[File], old: str, new: str
) -> ChangeSet:
    """Rename ``super().old`` in classes deriving from a class whose ``old`` was renamed."""
    contents: dict[str, ChangeContents] = {}
    renamed_classes: set[tuple[str, int]] = set()
    for change in changes.changes:
        if not isinstance(change, ChangeContents):
            continue
        contents[change.resource.path] = change
        try:
            before = _methods_of_classes(parse_python(change.resource.read()))
            after = _methods_of_classes(parse_python(change.new_contents))
        except SyntaxError:
            continue
        for line, names in before.items():
            if old in names and new in after.get(line, set()):
                renamed_classes.add((change.resource.path, line))
    if not renamed_classes:
        return changes
    result = ChangeSet(changes.description)
    touched: dict[str, str] = {}
    for resource in files:
        text = contents[resource.path].new_contents if resource.path in contents else None
        if text is None:
            text = resource.read()
        if "super(" not in text or old not in text:
            continue
        new_text = _rewrite_super(ctx, resource, text, old, new, renamed_classes)
        if new_text != text:
            touched[resource.path] = new_text
    for change in changes.changes:
        if isinstance(change, ChangeContents) and change.resource.path in touched:
            result.add_change(ChangeContents(change.resource, touched.pop(change.resource.path)))
        else:
            result.add_change(change)
    for path, text in touched.items():
        result.add_change(ChangeContents(ctx.project.get_resource(path), text))
    return result


def _ancestors(pyclass: pyobjects.PyObject) -> list[pyobjects.PyObject]:
    seen: list[pyobjects.PyObject] = []
    todo = list(pyclass.get_superclasses()) if hasattr(pyclass, "get_superclasses") else []
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.append(cls)
        if hasattr(cls, "get_superclasses"):
            todo.extend(cls.get_superclasses())
    return seen


def _class_key(cls: pyobjects.PyObject) -> tuple[str, int] | None:
    try:
        module = cls.get_module()
        resource = module.get_resource()
        node = cls.get_ast()
    except (AttributeError, TypeError):
        return None
    if resource is None or node is None:
        return None
    return (resource.path, node.lineno)


def _rewrite_super(
    ctx: Context,
    resource: File,
    text: str,
    old: str,
    new: str,
    renamed_classes: set[tuple[str, int]],
) -> str:
    try:
        tree = parse_python(text)
    except SyntaxError:
        return text
    pymodule = ctx.project.get_pymodule(resource)
    lines = text.splitlines(keepends=True)
    spots: list[int] = []
    for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]:
        calls = [
            n
            for n in ast.walk(cls)
            if isinstance(n, ast.Attribute)
            and n.attr == old
            and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Name)
            and n.value.func.id == "super"
        ]
        if not calls:
            continue
        # rename keeps line numbers, so the class is at the same line in rope's module
        scope = pymodule.get_scope().get_inner_scope_for_line(cls.lineno)
        pyclass = scope.pyobject
        if not isinstance(pyclass, pyobjects.AbstractClass):
            continue
        keys = {_class_key(c) for c in _ancestors(pyclass)}
        if not keys & renamed_classes:
            continue
        for node in calls:
            if node.end_lineno is None or node.end_col_offset is None:
                continue
            end = _char_offset(lines, node.end_lineno, node.end_col_offset)
            if text[end - len(old) : end] == old:
                spots.append(end - len(old))
    for start in sorted(set(spots), reverse=True):
        text = text[:start] + new + text[start + len(old) :]
    return text


def rename_module(ctx: Context) -> Planned:
    """Rename or move the module ``request.path`` to ``args['new_path']`` (willRenameFiles).

    A rename inside the same folder keeps the folder; a move to another package keeps the
    name. Doing both at once is refused (rope would need two steps).
    """
    new_path = os.path.realpath(ctx.str_arg("new_path"))
    resource = _module_resource(ctx.resource)
    old_real = os.path.realpath(resource.real_path)
    new_is_init = os.path.basename(new_path) == "__init__.py"
    if new_is_init:
        new_path = os.path.dirname(new_path)
    if os.path.dirname(old_real) == os.path.dirname(new_path):
        stem = os.path.basename(new_path)
        if not isinstance(resource, Folder):
            if not stem.endswith(".py"):
                raise RefactoringError("a Python module must keep the .py suffix")
            stem = stem[:-3]
        sub = Context(ctx.workspace, _with_args(ctx, new_name=stem, module=True), ctx.job, ctx.text)
        return rename(sub)
    if os.path.basename(old_real) != os.path.basename(new_path):
        raise RefactoringError("rename and move a module in two steps")
    dest = ctx.workspace.resource(os.path.dirname(new_path))
    mover = MoveModule(ctx.project, resource)
    files, skipped = ctx.scope_files(str(mover.old_name))
    changes = mover.get_changes(dest, resources=files, task_handle=ctx.job.handle)
    return Planned(
        changes, "move-module", f"move `{resource.path}` to `{dest.path}`", Hints(), skipped
    )


def _with_args(ctx: Context, **args: object):
    from dataclasses import replace

    return replace(ctx.request, args={**ctx.request.args, **args})
