"""Which top-level statements of a module are plain name bindings, and what they refer to.

The code outside function bodies is split into units (``units.source_units``):

* a *binding* unit per top-level statement whose only effect at import is to bind names:
  a ``def`` or ``class`` whose decorators only wrap, an assignment of a value computed
  without calls (or with calls known to have no effect elsewhere), an import of
  standard-library modules. Its unit is named by the name it binds (a ``def``'s is its
  function's header unit, ``f.<def>``); a class's unit covers its header and the body
  statements that are no members of their own (``rts.class_members``), and every other
  name its body binds gets an alias unit (``C.attr``, same checksum) so that a test reading
  ``obj.attr`` finds it;
* the *residue*, the module unit: imports, calls and every other statement with effects at
  import, and names the tools look up by name (``__dir__``, pytest hooks,
  ``setUpModule``...). Every test that imports the module depends on it, as before. Its
  statements that call what the module does not define are its ``call_sites``: library
  code handed a function there may read its docstring (``rts.lookups``).

A binding's ``refs`` are the names its statement reads at import (decorators, defaults,
annotations, base classes, the assigned value, a class body): a test that depends on the
binding depends on what those names are bound to as well. Order matters at import (a
value read before it is rebound, a base class defined after its subclass), so each
statement's checksum says, for every name it reads that the module binds, whether a
binding comes before it.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from lsp_server.rts.annotated_assignments import binding_as_run
from lsp_server.rts.ast_walk import walk
from lsp_server.rts.bound_names import instantiable, maybe_bound
from lsp_server.rts.class_doc_reads import class_reads_own_doc
from lsp_server.rts.class_members import (
    Member,
    class_aliases,
    class_is_binding,
    class_members,
    def_is_pure,
    is_plain,
    only_wraps,
)
from lsp_server.rts.constant_calls import builds_here
from lsp_server.rts.default_calls import keep_default_calls, order_markers
from lsp_server.rts.from_imports import FromImport, from_import
from lsp_server.rts.getattr_fallbacks import rebinds_getattr, unhanded_fallbacks
from lsp_server.rts.import_scope import Scope
from lsp_server.rts.lookups import call_roots
from lsp_server.rts.loose_assignments import loose_members, residue_class_refs
from lsp_server.rts.named_module_names import INERT_DUNDERS, LOOKED_UP
from lsp_server.rts.namespace_filters import NameSets
from lsp_server.rts.partial_callees import callee_markers, partial_callees
from lsp_server.rts.purity import (
    import_time_names,
    is_pure,
    is_type_checking_block,
    nested_statements,
)
from lsp_server.rts.raising_units import binding_raising, raising_unit, risk_reads
from lsp_server.rts.stdlib_imports import STDLIB, stdlib_imports
from lsp_server.rts.stdlib_queries import is_query
from lsp_server.rts.store_only_init import store_only_init
from lsp_server.rts.subclassing import as_types_read
from lsp_server.rts.typing_classes import TypingForms
from lsp_server.rts.wrapping_decorators import Wrappers

__all__ = ["Binding", "ModuleLayout", "import_time_names", "module_layout", "nested_statements"]


@dataclass
class Binding:
    """A top-level statement that only binds names."""

    names: tuple[str, ...]
    """Unit names: the bound names, or the class name for a class."""
    start: tuple[int, int]
    end: tuple[int, int]
    refs: frozenset[str]
    aliases: tuple[str, ...] = ()
    """For a class: ``C.x`` for every name its body binds that is no member (methods
    excluded): units of the class's checksum."""
    members: tuple[Member, ...] = ()
    """For a class: the statements of its body with units of their own."""
    is_def: bool = False
    is_class: bool = False
    is_import: bool = False
    doc: tuple[tuple[int, int], tuple[int, int]] | None = None
    """For a plain class (or one a ``typing`` form builds: ``rts.typing_classes``): its
    docstring's span, a unit of its own (``C.<doc>``): no metaclass, ``__init_subclass__``
    or decorator of a library can read it at import."""
    notes: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = ()
    """For such a class: the spans of the other strings of its body that are statements
    of their own (attribute docstrings): compiled to nothing, only code reading the source
    sees them, in the docstring unit."""
    own_doc: bool = False
    """Such a class: its docstring unit exists, empty without a docstring (so that adding
    one selects the tests that read docstrings, not every user of the class)."""
    takes: tuple[str, ...] = ()
    """For a standard-library import: what it takes for each name (``names`` order), the
    text of that name's unit: a name added to the statement changes no other name's."""
    risk_refs: frozenset[str] | None = None
    """For a class that may raise in its body: the names that part reads at import."""
    noted: frozenset[str] = frozenset()
    """For a class: the names only its dunders' inert annotations read (order markers)."""

    @property
    def marked(self) -> frozenset[str]:
        """The names its order markers cover: moved below, one makes the statement raise."""
        return self.refs | self.noted


@dataclass
class ModuleLayout:
    bindings: list[Binding] = field(default_factory=list)
    residue_refs: frozenset[str] = frozenset()
    callees: frozenset[str] = frozenset()  # ``rts.partial_callees``: in the residue's markers
    markers: dict[str, list[str]] = field(default_factory=dict)
    """Unit name (the module unit for the residue) -> order markers for its checksum."""
    call_sites: list[tuple[frozenset[str], frozenset[str]]] = field(default_factory=list)
    """Each residue statement that calls something the module does not define: the first
    names of its callees ("" for no name) and the names it reads (``rts.lookups``)."""
    from_imports: list[FromImport] = field(default_factory=list)
    """The residue's ``from`` imports whose names are units of their own."""
    loose: list[Member] = field(default_factory=list)
    """The methods and plain assignments of the residue's classes that are units of their
    own (``rts.loose_assignments``)."""
    loose_reads: dict[tuple[int, str], frozenset[str]] = field(default_factory=dict)
    """A residue class (by its line and name) -> the names only its loose assignments read."""
    wrappers: Wrappers = field(default_factory=Wrappers)
    """The module's wrappers as of its end, and the imported ones it trusted."""
    raising: dict[str, frozenset[str]] = field(default_factory=dict)
    """A ``def``'s or assignment's ``<raises>`` unit -> what it reads (``rts.raising_units``)."""
    getattr_rebound: bool = True
    """Whether the module may bind ``getattr`` (``rts.getattr_fallbacks``)."""

    def add_call_site(self, nodes: Iterable[ast.AST], reads: set[str], defined: set[str]) -> None:
        """A call site (``call_sites``) for ``nodes``, run at import, reading ``reads``, if
        they call what the module does not define (``defined``); a ``getattr`` fallback it
        only returns is handed to nothing (``rts.getattr_fallbacks``)."""
        if roots := {root or "" for node in nodes for root in call_roots(node)} - defined:
            unhanded = {n for node in nodes for n in unhanded_fallbacks(node, self.getattr_rebound)}
            self.call_sites.append((frozenset(roots), frozenset(reads - unhanded)))


def _def_is_binding(
    node: ast.FunctionDef | ast.AsyncFunctionDef, wrap: frozenset[str], scope: Scope | None = None
) -> bool:
    """``scope``: what the module bound before (a decorator's argument that queries the
    platform then changes nothing: ``rts.stdlib_queries``)."""
    if node.name in LOOKED_UP or node.name.startswith("pytest_"):
        return False
    inert = None if scope is None else functools.partial(is_query, scope=scope)
    return only_wraps(node, wrap, inert)  # default values' calls: ``rts.default_calls``


def _assignment_names(
    stmt: ast.stmt,
    builders: frozenset[str] = frozenset(),
    computed: bool = False,
    scope: Scope | None = None,
) -> tuple[str, ...] | None:
    """The names a plain top-level assignment binds; None when it is not one.
    ``builders``: classes of the module whose ``__init__`` only stores (``rts.store_only_init``);
    ``scope``: what the module bound before (a query of the platform then only binds:
    ``rts.stdlib_queries``)."""
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        targets, value = [stmt.target], stmt.value
    else:
        return None
    names: list[str] = []
    for target in targets:
        elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        for element in elements:
            if not isinstance(element, ast.Name):
                return None
            names.append(element.id)
    special = [n for n in names if n.startswith("__") and n not in INERT_DUNDERS]
    # computed: rts.constant_values; a query of the platform: rts.stdlib_queries; a
    # constant call of a standard-library maker: rts.constant_calls
    pure = computed or is_pure(value, builders=builders)
    pure = pure or bool(scope and (is_query(value, scope) or builds_here(value, scope)))
    if special or any(n in LOOKED_UP for n in names) or not pure:
        return None
    return tuple(names)


def _type_checking_names(stmt: ast.stmt) -> tuple[str, ...] | None:
    """The names an ``if TYPE_CHECKING:`` block binds, when its ``else`` (if any) only
    binds names too (``_binds_only``); None for any other statement."""
    if not is_type_checking_block(stmt) or not all(map(_binds_only, stmt.orelse)):
        return None
    names: list[str] = []
    for item in walk(stmt):
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(item.name)
        elif isinstance(item, ast.alias):
            names.append((item.asname or item.name).split(".")[0])
        elif isinstance(item, ast.Name) and isinstance(item.ctx, ast.Store):
            names.append(item.id)
    return tuple(dict.fromkeys(names))


def _binds_only(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` (in the ``else`` of an ``if TYPE_CHECKING:``, which runs) only binds
    names: a plain assignment, a standard-library import, a ``def`` that only wraps."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _def_is_binding(stmt, frozenset()) and def_is_pure(stmt)
    return stdlib_imports(stmt) is not None or _assignment_names(stmt) is not None


def _end(stmt: ast.stmt) -> tuple[int, int]:
    return (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)


def _is_str(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _binding(
    stmt: ast.stmt,
    plain_classes: set[str],
    makers: set[str],
    forms: TypingForms,
    builders: set[str],
    wrappers: frozenset[str],
    scope: Scope,
    computed: bool = False,
) -> Binding | None:
    """Grows ``plain_classes``, ``makers`` (``C()`` runs no module code) and ``builders``
    (``__init__`` only stores) by ``stmt``'s classes; ``forms``, ``wrappers``: those bound."""
    first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
    span = ((first, 0), (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0))
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if _def_is_binding(stmt, wrappers, scope):
            return Binding((stmt.name,), *span, frozenset(import_time_names(stmt)), is_def=True)
        return None
    if isinstance(stmt, ast.ClassDef):
        built = forms.builds(stmt)
        if not class_is_binding(stmt, frozenset(makers), built, wrappers, frozenset(builders)):
            return None
        plain = is_plain(stmt, plain_classes)
        if plain:
            plain_classes.add(stmt.name)
            if instantiable(stmt, makers):
                makers.add(stmt.name)
            if store_only_init(stmt) is not None:
                builders.add(stmt.name)
        members, refs, noted = class_members(stmt, plain)
        own = {name for member in members if not member.is_def for name in member.names}
        aliases = [a for a in class_aliases(stmt, f"{stmt.name}.") if a not in own]
        binding = Binding((stmt.name,), *span, refs, tuple(dict.fromkeys(aliases)))
        binding.is_class, binding.members, binding.noted = True, tuple(members), noted
        # A body reading its docstring by name keeps it: ``rts.class_doc_reads``.
        binding.own_doc = (plain or built) and not class_reads_own_doc(stmt, wrappers)
        if binding.own_doc:
            strings = [s for s in stmt.body if isinstance(s, ast.Expr) and _is_str(s.value)]
            spans = [((s.lineno, s.col_offset), _end(s)) for s in strings]
            if strings and strings[0] is stmt.body[0]:
                binding.doc, spans = spans[0], spans[1:]
            binding.notes = tuple(spans)
        return binding
    return _plain_binding(stmt, span, frozenset(builders), scope, computed)


def _plain_binding(
    stmt: ast.stmt,
    span: tuple[tuple[int, int], tuple[int, int]],
    builders: frozenset[str],
    scope: Scope,
    computed: bool,
) -> Binding | None:
    """``stmt`` as a binding when it is no ``def`` or class: an ``if TYPE_CHECKING:``, an
    import that only binds, an assignment of a value without effects."""
    checked = _type_checking_names(stmt)
    if checked is not None:
        # Its body never runs; a test reading one of its names (an annotation evaluated at
        # run time) sees the names missing, or bound elsewhere, or bound by the ``else``,
        # which reads what its statements read.
        orelse = stmt.orelse if isinstance(stmt, ast.If) else []
        reads: set[str] = set().union(*map(import_time_names, orelse))
        return Binding(checked, *span, frozenset(reads - set(checked)))
    if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
        # It binds the feature names; how it changes the file's code is the markers of
        # the units it can change (``rts.future``).
        features = tuple(a.asname or a.name for a in stmt.names)
        return Binding(features, *span, frozenset(), is_import=True)
    imported = stdlib_imports(stmt)
    if imported is not None:
        bound = tuple(name for name, _ in imported)
        takes = tuple(taken for _, taken in imported)
        return Binding(bound, *span, frozenset(), is_import=True, takes=takes)
    names = _assignment_names(stmt, builders, computed, scope)
    if names is None:
        return None
    return Binding(names, *span, frozenset(import_time_names(stmt)) - set(names))


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _ordered(members: tuple[Member, ...], before: set[str], bound: set[str]) -> tuple[Member, ...]:
    """The class ``members`` with order markers of the module's bindings each reads too:
    ``SIZE = len`` takes the module's ``len`` defined above the class, the builtin where it
    comes below."""
    return tuple(
        replace(m, markers=(*m.markers, *order_markers(m.refs, before, bound))) for m in members
    )


def _residue_class(
    layout: ModuleLayout,
    node: ast.ClassDef,
    members: tuple[Member, ...],
    before: set[str],
    bound: set[str],
) -> set[str]:
    """Takes a class of the residue with its ``members`` of their own into ``layout``: what
    its statement reads for every importer is returned (``rts.loose_assignments``)."""
    # A loose method's markers say where the class body reads it: the module unit's.
    methods = tuple(m for m in members if m.is_def)
    layout.loose += [*methods, *_ordered(tuple(m for m in members if not m.is_def), before, bound)]
    reads, apart = residue_class_refs(node, members)
    if apart:
        layout.loose_reads[(node.lineno, node.name)] = frozenset(apart)
    return reads


def module_layout(tree: ast.Module) -> ModuleLayout:
    """Bindings and residue of a module's top-level statements."""
    layout = ModuleLayout(getattr_rebound=rebinds_getattr(tree))
    plain_classes: set[str] = set()
    makers: set[str] = set()
    builders: set[str] = set()
    forms, wrappers = TypingForms(), layout.wrappers
    scope, sets = Scope(tree, STDLIB), NameSets()
    found = []
    for stmt in tree.body:
        rebound = maybe_bound(stmt)  # maybe to something else
        makers.difference_update(rebound)
        builders.difference_update(rebound)
        builders.update(scope.value_classes())  # they only make values too
        computed = bool(scope.computed(stmt))
        wrapping, scope.safe_wrappers = wrappers.before(stmt)
        binding = _binding(stmt, plain_classes, makers, forms, builders, wrapping, scope, computed)
        wrappers.after(stmt)
        forms.after(stmt, binding is not None and binding.own_doc)
        raising = binding_raising(layout, stmt, binding, scope)  # ``rts.class_frames``
        unread, filters = sets.take(stmt, scope)  # ``rts.namespace_filters``
        loose = () if binding else loose_members(stmt, plain_classes, scope)
        scope.after(stmt)
        found.append((stmt, binding, raising, unread, filters, loose))
    imports = {id(s): fi for s, b, *_ in found if b is None and (fi := from_import(s)) is not None}
    bound = {name for _, b, *_ in found if b is not None for name in b.names}
    bound.update(local for fi in imports.values() for local, _ in fi.names)
    defined = {s.name for s in tree.body if isinstance(s, _DEFINITIONS)}
    before, residue_refs = set[str](), set[str]()
    residue_count = 0  # statements of the module unit so far
    for stmt, binding, raising, unread, filters, loose in found:
        for unit, marker in raising:  # a class's frame: ``class_frames``
            if not unit and binding is not None:  # ``rts.raising_units``
                risky = binding_as_run(stmt, binding, scope.lazy_annotations)
                order = order_markers(risk_reads(risky), before, bound)
                unit, marker = raising_unit(layout, risky, marker, order)
            layout.markers.setdefault(unit, []).append(marker)
        if binding is None:
            residue_count += 1
            if isinstance(stmt, ast.ClassDef):
                reads = _residue_class(layout, stmt, loose, before, bound)
            else:
                reads = import_time_names(stmt)
            residue_refs |= as_types_read(stmt, reads - unread)  # ``rts.subclassing``
            handed = {stmt.name} if isinstance(stmt, _DEFINITIONS) else set()  # to its decorator
            layout.add_call_site([stmt], reads | handed, defined)
            layout.markers.setdefault("", []).extend(order_markers(reads, before, bound) + filters)
            if id(stmt) in imports:
                layout.from_imports.append(imports[id(stmt)])
                before.update(local for local, _ in imports[id(stmt)].names)
            continue
        layout.bindings.append(binding)
        residue_refs |= keep_default_calls(layout, stmt, residue_count, (before, bound), defined)
        for name in binding.names:
            layout.markers.setdefault(name, []).extend(order_markers(binding.marked, before, bound))
        binding.members = _ordered(binding.members, before, bound)
        before.update(binding.names)
    layout.residue_refs, layout.callees = frozenset(residue_refs), partial_callees(tree)
    layout.markers.setdefault("", []).extend(callee_markers(layout.callees))
    return layout
