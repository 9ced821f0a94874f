"""Rename: locals, parameters, functions, methods (whole hierarchy), classes, attributes,
modules and packages.

Beyond rope: new names are checked first (identifier, keyword, clash in the defining
scope); files that do not parse are left out of the search and reported; renaming a method
renames the overrides in the hierarchy; what rope misses (overriding properties and
attributes, ``super().m(...)``, ``__all__``, strings) is completed, or marked uncertain, by
``semantics.rename_checks``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from rope.base import exceptions as rope_exceptions
from rope.base import pynames, pyobjects
from rope.base.resources import File, Folder, Resource
from rope.refactor.move import MoveModule
from rope.refactor.rename import Rename

from lsp_server.project.text import identifier_span
from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.model import RefactoringError, Uncertain
from lsp_server.refactor.names import check_clash, check_identifier, check_module_name
from lsp_server.refactor.provenance import Hints, qualname_renamer
from lsp_server.refactor.semantics.rename_checks import RenameSite, complete_rename
from lsp_server.refactor.semantics.rename_hierarchy import (
    Hierarchy,
    class_key,
    definition_of_unresolved,
    home_class,
)


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
    renamer = _renamer(ctx, resource, offset)
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
    site = RenameSite(ctx.project, renamer.old_pyname, files, old, new_name, ctx.workspace.relpath)
    unsure = None if is_module else _unsure_callback(site)
    changes = renamer.get_changes(
        new_name,
        in_hierarchy=bool(renamer.is_method()),
        unsure=unsure,
        resources=files,
        task_handle=ctx.job.handle,
    )
    uncertain: list[Uncertain] = []
    if not is_module and changes is not None:
        changes, uncertain = complete_rename(site, changes)
    hints = Hints(name_map=qualname_renamer(old, new_name))
    planned = Planned(changes, "rename", f"rename `{old}` -> `{new_name}`", hints, skipped)
    planned.verify_names = frozenset({old, new_name})
    planned.uncertain = uncertain
    return planned


def _unsure_callback(site: RenameSite) -> Callable[[Any], bool]:
    """What to do with ``obj.old`` where ``obj``'s type is unknown: rope calls these unsure
    and skips them, which breaks the program. When no class outside the renamed member's
    hierarchy defines ``old``, such an occurrence can only be this member: rename it.
    Otherwise rename it too, but as an uncertain change the user confirms."""
    home = home_class(site.pyname)
    if home is not None:
        site.hierarchy = Hierarchy.of(site.project, site.files)
    certain = site.hierarchy is not None and _unambiguous_member(site.hierarchy, home, site.old)
    return site.unsure_filter(certain=certain)


def _renamer(ctx: Context, resource: Resource, offset: int | None) -> Rename:
    """rope's Rename at the place asked; at a name rope cannot resolve (``obj.m`` with an
    unknown ``obj``, the ``"m"`` of ``getattr(obj, "m")``), at the definition of the member
    it can only be."""
    try:
        return Rename(ctx.project, resource, offset)
    except rope_exceptions.RefactoringError:
        if offset is None:
            raise
        start, end = identifier_span(ctx.text, ctx.request.offset)
        if start == end:
            raise
        name = ctx.text[start:end]
        files, _ = ctx.scope_files(name)
        found, at = definition_of_unresolved(ctx.project, files, name, ctx.workspace.relpath)
        return Rename(ctx.project, found, at)


def _renamed_module(renamer: Rename) -> Resource | None:
    """The file or package folder a module rename moves."""
    if renamer.old_pyname is not None:
        found = renamer.old_pyname.get_object().get_resource()
        if found is not None:
            return _module_resource(found)
    return renamer.resource


def _unambiguous_member(hierarchy: Hierarchy, home: Any, old: str) -> bool:
    """True if every class in the searched files defining a member ``old`` is ``home``, one
    of its bases, or derives from one of those."""
    key = class_key(home)
    if key is None:
        return False
    related = {key} | hierarchy.bases.get(key, set())
    return all(
        other in related or hierarchy.bases.get(other, set()) & related
        for other in hierarchy.nodes
        if hierarchy.defines(other, old)
    )


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
    tree = module.get_ast() if isinstance(module, pyobjects.PyModule) else None
    check_clash(resource.read(), line, old, new, is_attribute, tree)


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
