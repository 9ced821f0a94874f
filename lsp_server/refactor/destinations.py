"""Where "move method" can send a method: attributes of ``self`` whose class is project code.

rope moves a method to the class of an attribute of ``self``; offering an attribute that
holds an ``int`` or a ``list`` makes no sense (the class is not ours to edit). Listing
offers must stay cheap, so the class is read from the syntax alone: an attribute qualifies
when some assignment in its class gives it an instance of a project class, written as

- ``self.x = Cls(...)``,
- ``self.x: Cls = ...``, or
- ``self.x = param`` where the method's parameter is annotated ``param: Cls``,

and ``Cls`` is a class defined in the module, or imported from a project module (a
relative import, or one ``project_module`` recognizes). An imported name counts as a
class when it is capitalized (PEP 8), since the imported module is not parsed here.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable

from lsp_server.refactor.class_fields import FieldAssignments, expression, field_assignments
from lsp_server.refactor.outline import ModuleFacts

ProjectModule = Callable[[str], bool]
"""Whether a dotted module name is a module of the project (not stdlib, not installed)."""


def project_module_finder(root: str) -> ProjectModule:
    """Modules found as files under ``root`` (or ``root/src``), by their dotted name."""
    bases = [root, os.path.join(root, "src")]

    def is_project_module(module: str) -> bool:
        relative = os.path.join(*module.split("."))
        return any(
            os.path.isfile(os.path.join(base, relative + ".py"))
            or os.path.isfile(os.path.join(base, relative, "__init__.py"))
            for base in bases
        )

    return is_project_module


def _project_names(facts: ModuleFacts, project_module: ProjectModule | None) -> set[str]:
    """Names in the module bound to project classes, or (``alias.``) to project modules."""
    names = set(facts.classes)
    for fact in facts.imports:
        if fact.is_from:
            ours = fact.level > 0 or (
                project_module is not None and project_module(fact.module or "")
            )
            if ours:
                names.update(asname or name for name, asname in fact.names if name[:1].isupper())
        elif project_module is not None:
            for name, asname in fact.names:
                if project_module(name):
                    names.add(f"{asname or name}.")
    return names


def _is_project_class(expr: ast.expr | None, names: set[str]) -> bool:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):  # "Cls" annotation
        try:
            expr = ast.parse(expr.value, mode="eval").body
        except SyntaxError:
            return False
    if isinstance(expr, ast.Name):
        return expr.id in names
    if isinstance(expr, ast.Attribute):
        return expr.attr[:1].isupper() and f"{ast.unparse(expr.value)}." in names
    return False


def project_class_attributes(
    facts: ModuleFacts,
    cls: ast.ClassDef | FieldAssignments,
    project_module: ProjectModule | None = None,
) -> list[str]:
    """Attributes of ``self`` in ``cls`` that hold an instance of a project class, in order
    (``facts``: those of ``cls``'s module; ``cls`` the class, or its methods' assignments
    to ``self`` listed by ``class_fields.field_assignments``)."""
    names = _project_names(facts, project_module)
    assignments = cls if isinstance(cls, tuple) else field_assignments(cls)
    found: dict[str, None] = {}
    for attributes, expressions in assignments:
        if any(_is_project_class(expression(e), names) for e in expressions):
            found.update((attribute, None) for attribute in attributes)
    return list(found)
