"""Classes built by ``typing``'s special forms whose docstrings nothing reads at import.

``class Options(TypedDict, total=False)``: ``TypedDict``'s metaclass makes the class from
its namespace and annotations, ``NamedTuple``'s from its annotations and defaults, and
``Generic``/``Protocol`` record their type parameters; none reads ``__doc__``. Such a class
gets a docstring unit of its own, as a plain class does (``rts.bindings``): pyjwt documents
each option of its ``TypedDict`` classes, which every module imports, and a typo fixed in a
docstring ran the whole suite. ``TypedDict`` takes its keywords (``total``...) only as
flags of the class it makes.
"""

from __future__ import annotations

import ast
import typing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lsp_server.rts.bound_names import maybe_bound
from lsp_server.rts.purity import is_pure, is_string_statement
from lsp_server.rts.stdlib_values import stdlib_object_of, type_annotation

if TYPE_CHECKING:
    from lsp_server.rts.import_scope import Scope

DOC_BLIND_FORMS = frozenset(["TypedDict", "NamedTuple", "Protocol", "Generic"])
_TYPING_MODULES = frozenset(["typing", "typing_extensions"])
_TYPED_DICT_KEYWORDS = frozenset(["total", "closed", "extra_items"])


@dataclass
class TypingForms:
    """What the module's statements so far bind to ``typing``'s doc-blind forms, and which
    of its classes are built by them; ``after`` takes each top-level statement in."""

    forms: dict[str, str] = field(default_factory=dict)
    """A name bound by ``from typing import TypedDict [as x]`` -> the form."""
    modules: set[str] = field(default_factory=set)
    """Names bound to ``typing`` or ``typing_extensions`` (``import typing as t``)."""
    classes: dict[str, str] = field(default_factory=dict)
    """Classes of the module built by a form -> the form (``TypedDict`` subclasses...)."""

    def after(self, stmt: ast.stmt, doc_blind: bool) -> None:
        for name in maybe_bound(stmt):  # rebound, maybe to something else
            self.forms.pop(name, None)
            self.modules.discard(name)
            self.classes.pop(name, None)
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module in _TYPING_MODULES:
            for alias in stmt.names:
                if alias.name in DOC_BLIND_FORMS:
                    self.forms[alias.asname or alias.name] = alias.name
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name in _TYPING_MODULES:
                    self.modules.add(alias.asname or alias.name)
        elif isinstance(stmt, ast.ClassDef) and doc_blind:
            form = self._form_of_bases(stmt)
            if form is not None:
                self.classes[stmt.name] = form

    def builds(self, node: ast.ClassDef) -> bool:
        """Whether a form builds the class ``node`` and nothing can read its docstring:
        no decorator, every base a form (``Generic[T]`` too) or such a class of the module,
        keywords only ``TypedDict``'s flags with values free of effects."""
        if node.decorator_list:
            return False
        form = self._form_of_bases(node)
        if form is None:
            return False
        if not node.keywords:
            return True
        return form == "TypedDict" and all(
            k.arg in _TYPED_DICT_KEYWORDS and is_pure(k.value) for k in node.keywords
        )

    def _form_of_bases(self, node: ast.ClassDef) -> str | None:
        """The form that builds the class (its first base's), when every base is one."""
        found = [self._form(base) for base in node.bases]
        if not found or None in found:
            return None
        return found[0]

    def _form(self, base: ast.expr) -> str | None:
        if isinstance(base, ast.Subscript):  # ``Generic[T]``, ``Protocol[T]``
            base = base.value
        if isinstance(base, ast.Name):
            return self.forms.get(base.id) or self.classes.get(base.id)
        if (
            isinstance(base, ast.Attribute)
            and isinstance(base.value, ast.Name)
            and base.value.id in self.modules
            and base.attr in DOC_BLIND_FORMS
        ):
            return base.attr
        return None


def typed_dict_bases(node: ast.ClassDef, scope: Scope) -> bool:
    """Every base is ``typing.TypedDict`` or a ``TypedDict`` class of the module."""
    return bool(node.bases) and all(
        (isinstance(b, ast.Name) and b.id in scope.typed_dicts and not scope.star)
        or stdlib_object_of(b, scope) is typing.TypedDict
        for b in node.bases
    )


def typed_dict_may_raise(node: ast.ClassDef, scope: Scope) -> bool:
    """``TypedDict``'s metaclass refuses a keyword but ``total``, a decorator is unknown
    code, and each key's annotation must be a type (or a string naming one)."""
    if node.decorator_list:
        return True
    if any(k.arg != "total" or not isinstance(k.value, ast.Constant) for k in node.keywords):
        return True
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
            if not isinstance(stmt.target, ast.Name):
                return True
            if not scope.lazy_annotations and not type_annotation(stmt.annotation, scope):
                return True
        elif not isinstance(stmt, ast.Pass) and not is_string_statement(stmt):
            return True
    return False
