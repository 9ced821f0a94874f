"""What a module has bound before each of its top-level statements runs, as
``rts.import_raise`` judges whether the statement may raise (``Scope.after`` takes each in)."""

from __future__ import annotations

import ast

from lsp_server.rts.ast_walk import of_types, per_node
from lsp_server.rts.bound_names import every_bound, instantiable, maybe_bound, surely_bound
from lsp_server.rts.constant_values import constant_value, immutable
from lsp_server.rts.enum_classes import MadeEnum, enum_made_here
from lsp_server.rts.partial_callees import callable_imports
from lsp_server.rts.purity import STDLIB_VALUE_CLASSES, is_string_statement
from lsp_server.rts.stdlib_values import BUILTINS, MISSING
from lsp_server.rts.store_only_init import store_only_init
from lsp_server.rts.typing_classes import typed_dict_bases


class Scope:
    """What the module binds before a statement runs, and how it evaluates annotations."""

    def __init__(self, tree: ast.Module, stdlib: frozenset[str]) -> None:
        self.stdlib = stdlib
        self.bound: set[str] = set()
        self.plain_classes: set[str] = set()
        """Classes of the module whose subclasses run no code of theirs when created."""
        self.rebound: set[str] = set()  # every name bound so far on some path
        self.typed_dicts: set[str] = set()
        """Classes of the module that ``TypedDict`` builds (their subclasses are too)."""
        self.instantiable: set[str] = set()
        """Plain classes of the module that ``C()`` makes without running code of theirs:
        no ``__init__`` or ``__new__``, bases only ``object`` or such classes."""
        self.members: dict[str, set[str]] = {}
        self.builders: dict[str, ast.arguments] = {}
        """Plain classes of the module whose ``__init__`` only stores its parameters ->
        those parameters (``rts.store_only_init``)."""
        """Classes of the module -> the names their bodies surely bind."""
        self.imported: dict[str, tuple[str, str]] = {}
        """Names bound by ``from m import x`` of the standard library -> ``(m, x)``."""
        self._judged: str | None = None
        self.enums: dict[str, MadeEnum] = {}
        """Enumerations of the module made at analysis time (``rts.enum_classes``)."""
        self.modules: dict[str, str] = {}
        """Names bound by ``import x [as y]`` of a standard-library module -> ``x``."""
        self.safe_wrappers: frozenset[str] = frozenset()
        """The module's wrappers that cannot raise applied first to the ``def`` judged now
        (``Wrappers.safely_applied``; none for other statements)."""
        self.pytest: set[str] = set()
        self.callable_imports = callable_imports(tree, stdlib)
        """Names a ``from`` import alone binds that ``functools.partial`` may take
        (``rts.partial_callees``)."""
        self.libraries: dict[str, str] = {}
        """Names bound by ``import x [as y]`` of an installed library's module -> ``x``, as
        ``modules`` (``rts.library_names``)."""
        self.library_modules: set[str] = set()
        """Modules of installed libraries that top-level statements before surely imported
        (none once code may rebind a module's entry in ``sys.modules``)."""
        """Names surely bound to the ``pytest`` module (``import pytest [as y]``)."""
        self.star = False
        self.constants: dict[str, object] = {}
        if tree.body and is_string_statement(tree.body[0]):  # the module's docstring
            self.constants["__doc__"] = ast.literal_eval(tree.body[0].value)  # type: ignore[attr-defined]
        """Names surely bound to a value computed from constants (``rts.constant_values``)
        -> that value."""
        self.fresh: dict[str, object] = {}
        """The same for a mutable value (a dict, a list), only while no statement but such
        computed bindings ran since it was bound: nothing could change it yet."""
        self._unpinned = _unpinned(tree)
        self._last_computed: tuple[ast.stmt | None, dict[str, object]] = (None, {})
        self.lazy_annotations = any(
            isinstance(s, ast.ImportFrom)
            and s.module == "__future__"
            and any(a.name == "annotations" for a in s.names)
            for s in tree.body
        )

    def value_classes(self) -> set[str]:
        """Names bound by ``from datetime import date``-like imports to the classes of
        ``purity.STDLIB_VALUE_CLASSES``: calling one only makes a value."""
        return {name for name, origin in self.imported.items() if origin in STDLIB_VALUE_CLASSES}

    def known(self, name: str) -> bool:
        return name in self.bound or (name in BUILTINS and not self.star)

    def after(self, stmt: ast.stmt) -> None:
        """Take in what ``stmt`` surely binds once it has run."""
        stdlib = self.stdlib
        if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
            self.star = True
            self.constants.clear()  # it may rebind any of them
            self.fresh.clear()
            self.pytest.clear()
            self.libraries.clear()
        computed = self.computed(stmt)
        made = enum_made_here(stmt, self) if isinstance(stmt, ast.ClassDef) else None
        rebound = maybe_bound(stmt)
        self.rebound |= rebound
        if not computed:
            self.fresh.clear()  # what ran may have changed them
        for name in rebound:
            self.constants.pop(name, None)  # ``if x: C = other`` may rebind a plain class
            self.fresh.pop(name, None)
            self.modules.pop(name, None)
            self.plain_classes.discard(name)
            self.typed_dicts.discard(name)
            self.instantiable.discard(name)
            self.members.pop(name, None)
            self.imported.pop(name, None)
            self.builders.pop(name, None)
            self.enums.pop(name, None)
            self.pytest.discard(name)
            self.libraries.pop(name, None)
        if made is not None:
            assert isinstance(stmt, ast.ClassDef)
            self.enums[stmt.name] = made
        self.bound |= surely_bound(stmt)
        self.constants.update((n, v) for n, v in computed.items() if immutable(v))
        self.fresh.update((n, v) for n, v in computed.items() if not immutable(v))
        if isinstance(stmt, ast.ClassDef):
            self.members[stmt.name] = every_bound(stmt.body)
            if typed_dict_bases(stmt, self):
                self.typed_dicts.add(stmt.name)
            if self._judged == stmt.name:
                self.plain_classes.add(stmt.name)
                if instantiable(stmt, self.instantiable):
                    self.instantiable.add(stmt.name)
                params = store_only_init(stmt)
                if params is not None:
                    self.builders[stmt.name] = params
        self._judged = None
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
            for alias in stmt.names:
                if alias.name != "*" and stmt.module.split(".")[0] in stdlib:
                    self.imported[alias.asname or alias.name] = (stmt.module, alias.name)
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                top = alias.name.split(".")[0]
                if top in stdlib:  # ``import a.b`` binds ``a``; ``import a.b as c``, ``a.b``
                    self.modules[alias.asname or top] = alias.name if alias.asname else top
                elif alias.name == "pytest":
                    self.pytest.add(alias.asname or top)
                elif self._unpinned is not None and (alias.asname or top) not in self._unpinned:
                    self.libraries[alias.asname or top] = alias.name if alias.asname else top
        self._take_library(stmt)

    def _take_library(self, stmt: ast.stmt) -> None:
        """The modules an absolute import outside the standard library surely imported
        (``rts.library_names`` tells an installed library's from the project's)."""
        if isinstance(stmt, ast.Import):
            modules = [alias.name for alias in stmt.names]
        elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
            modules = [stmt.module]
        else:
            return
        if self._unpinned is not None:  # else ``sys.modules`` may drop one: imported again
            self.library_modules.update(m for m in modules if m.split(".")[0] not in self.stdlib)

    def computed(self, stmt: ast.stmt) -> dict[str, object]:
        """The names ``stmt`` binds to a value computed from constants, with it (asked
        before ``after(stmt)``, which asks it again: the last answer is kept)."""
        if self._last_computed[0] is stmt:
            return self._last_computed[1]
        found = self._compute(stmt)
        self._last_computed = (stmt, found)
        return found

    def _compute(self, stmt: ast.stmt) -> dict[str, object]:
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            names = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names = [stmt.target.id]
        else:
            return {}
        if self._unpinned is None or self.star or self._unpinned.intersection(names):
            return {}
        value = constant_value(stmt.value, self) if stmt.value is not None else MISSING
        if value is MISSING:
            return {}
        # A mutable value is kept only until other code runs (``fresh``).
        return dict.fromkeys(names, value)


# What may rebind any global of the module while it is imported (with ``sys.modules``).
_NAMESPACE_WRITERS = frozenset(["globals", "vars", "exec", "eval"])


@per_node  # each file's analysis makes several scopes
def _unpinned(tree: ast.Module) -> frozenset[str] | None:
    """Names a function of the module may rebind (``global x``): their values are not the
    last assignment's. None when code may rebind any name (``globals()``,
    ``sys.modules[__name__]``)."""
    names: set[str] = set()
    for node in of_types(tree, (ast.Global, ast.Name, ast.Attribute)):
        if isinstance(node, ast.Global):
            names.update(node.names)
        elif (isinstance(node, ast.Name) and node.id in _NAMESPACE_WRITERS) or (
            isinstance(node, ast.Attribute) and node.attr == "modules"
        ):
            return None
    return frozenset(names)
