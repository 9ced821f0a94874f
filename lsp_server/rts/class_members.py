"""Which statements of a class body are units of their own (``rts.bindings``).

A class that is a binding (no metaclass keyword, decorators and bases that only build,
every statement of its body free of effects: a registering call anywhere in it makes the
whole class part of the module unit; calls in its methods' default values stay there
alone, ``rts.default_calls``) has a unit for its header and the statements that stay with
it, and a unit per *member*:

* each method not named ``__x__`` whose decorators and defaults only build: its header
  unit (``C.m.<def>``) leaves the class unit, so a changed signature or a new method selects
  the tests that read its name, not every user of the class. Dunder methods stay: Python
  looks them up without a name in the code (``==`` finds ``__eq__``);
* in a *plain* class (no decorator, no metaclass, bases that are ``object``, builtin
  exceptions or plain classes of the same module), each assignment of a value without
  effects to names not ``__x__``: ``C.x``. A decorator or a library base class may read
  every attribute (``dataclass`` fields, ``Enum`` members), so there they stay.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

from lsp_server.rts.ast_walk import walk
from lsp_server.rts.bound_names import is_dunder, maybe_bound
from lsp_server.rts.class_doc_reads import class_scope_refs
from lsp_server.rts.header_parts import annotation_only_reads
from lsp_server.rts.purity import import_time_names, is_pure, nested_statements, pure_decorator
from lsp_server.rts.tokens import Body, TokenText

Pos = tuple[int, int]
_Def = (ast.FunctionDef, ast.AsyncFunctionDef)
PLAIN_BASES = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
) | {"object"}


@dataclass(frozen=True)
class Member:
    """A class-body statement with a unit of its own."""

    names: tuple[str, ...]
    """Qualified: ``C.x`` (an assignment may bind several), or ``C.m`` for a method (its
    unit is the header unit ``C.m.<def>``)."""
    start: Pos
    end: Pos
    refs: frozenset[str]
    markers: tuple[str, ...]
    is_def: bool = False


def def_is_pure(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    wrappers: frozenset[str] = frozenset(),
    inert: Callable[[ast.expr], bool] | None = None,
) -> bool:
    """Decorators that only wrap (``only_wraps``), default values without effects."""
    args = node.args
    header: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    return only_wraps(node, wrappers, inert) and all(map(is_pure, header))


def only_wraps(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    wrappers: frozenset[str] = frozenset(),
    inert: Callable[[ast.expr], bool] | None = None,
) -> bool:
    """Decorators that only wrap (``wrappers``: the module's own, ``rts.wrapping_decorators``;
    ``inert``: arguments with calls that change nothing, ``purity.pure_decorator``): a
    ``def`` whose default values call code binds all the same, the module unit keeping the
    calls (``rts.default_calls``)."""
    return all(pure_decorator(d, wrappers, inert) for d in node.decorator_list)


def class_body(node: ast.ClassDef) -> Iterator[ast.stmt]:
    for stmt in node.body:
        yield stmt
        if not isinstance(stmt, (*_Def, ast.ClassDef)):
            yield from nested_statements(stmt)


def class_is_binding(
    node: ast.ClassDef,
    makers: frozenset[str] = frozenset(),
    keywords_ok: bool = False,
    wrappers: frozenset[str] = frozenset(),
    builders: frozenset[str] = frozenset(),
) -> bool:
    """``makers``: classes of the module whose ``C()`` runs no code of it; ``keywords_ok``:
    its keywords are flags of a ``typing`` form (``rts.typing_classes``); ``wrappers``: the
    module's functions that only wrap (``rts.wrapping_decorators``); ``builders``: classes
    whose ``C(...)`` only makes a value (``bindings.module_layout``)."""
    wrap = all(pure_decorator(d, wrappers) for d in node.decorator_list)
    if (node.keywords and not keywords_ok) or not wrap:
        return False
    if not all(map(is_pure, node.bases)):
        return False
    updates = own_updates(node)
    for stmt in class_body(node):
        if id(stmt) in updates:
            continue  # it fills a container the body built: no effect outside the class
        if isinstance(stmt, _Def):
            if not only_wraps(stmt, wrappers):
                return False
        elif isinstance(stmt, ast.ClassDef):
            if not class_is_binding(stmt, wrappers=wrappers):
                return False
        elif not is_pure(stmt, makers, builders):
            return False  # a registration, or any other effect at import
    return True


# Methods of the builtin containers that change the container and call no code of the
# project when handed values without effects (``sort`` may call a key).
_FILLING_METHODS = frozenset(["update", "append", "extend", "add", "insert", "setdefault"])
_CONTAINERS = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)


def own_updates(node: ast.ClassDef) -> dict[int, str]:
    """The statements of the class body (by id) that only fill a container the body built
    itself, -> its name: ``X.update(...)`` (``_FILLING_METHODS``) as a statement of the
    body's top level, with arguments free of effects, where the body last bound ``X`` by
    ``X = <a container display>`` before it (boltons' ``FunctionBuilder._defaults``). Like
    the assignment, it builds the class's value; a module-level ``X`` is another module
    binding's value (a registry): not one of these."""
    filled: set[str] = set()
    updates: dict[int, str] = {}
    for stmt in node.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id in filled
            and call.func.attr in _FILLING_METHODS
            and all(is_pure(a) for a in (*call.args, *(k.value for k in call.keywords)))
        ):
            updates[id(stmt)] = call.func.value.id
            continue
        filled -= maybe_bound(stmt)
        assigned = _single_assignment(stmt)
        if assigned is not None and isinstance(assigned[1], _CONTAINERS) and is_pure(assigned[1]):
            filled.add(assigned[0])
    return updates


def safe_fills(node: ast.ClassDef) -> set[int]:
    """ids of the class-body statements that fill a container the body last bound, at its
    top level, to a display, and cannot raise (``rts.import_raise``; whether the displays
    can is judged on their own): ``X.update(Y)`` of two dicts, ``X.add(<constant>)`` of a
    set (every constant is hashable), ``X.append(<constant>)`` of a list."""
    bound: dict[str, type[ast.expr]] = {}
    found: set[int] = set()
    for stmt in node.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and _fill_cannot_raise(call, bound):
            found.add(id(stmt))
            continue
        for name in maybe_bound(stmt):
            bound.pop(name, None)
        assigned = _single_assignment(stmt)
        if assigned is not None and isinstance(assigned[1], _CONTAINERS):
            bound[assigned[0]] = _DISPLAY_KINDS[type(assigned[1])]
    return found


_DISPLAY_KINDS: dict[type[ast.expr], type[ast.expr]] = {
    ast.Dict: ast.Dict,
    ast.DictComp: ast.Dict,
    ast.Set: ast.Set,
    ast.SetComp: ast.Set,
    ast.List: ast.List,
    ast.ListComp: ast.List,
}


def _fill_cannot_raise(call: ast.Call, bound: dict[str, type[ast.expr]]) -> bool:
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return False
    kind = bound.get(func.value.id)
    if call.keywords or len(call.args) != 1 or kind is None:
        return False
    (arg,) = call.args
    if kind is ast.Dict:
        return func.attr == "update" and isinstance(arg, ast.Name) and bound.get(arg.id) is ast.Dict
    constant_fill = {ast.Set: "add", ast.List: "append"}.get(kind)
    return func.attr == constant_fill and isinstance(arg, ast.Constant)


def _single_assignment(stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    """(name, value) when ``stmt`` is ``name = value``."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        return (target.id, stmt.value) if isinstance(target, ast.Name) else None
    return None


def is_plain(node: ast.ClassDef, plain_classes: set[str]) -> bool:
    if node.decorator_list or node.keywords:
        return False
    return all(
        isinstance(base, ast.Name) and (base.id in PLAIN_BASES or base.id in plain_classes)
        for base in node.bases
    )


# A class body calling one of these may list its own namespace (``dir()`` without an
# argument, a frame's ``f_locals``).
_NAMESPACE_READS = frozenset(
    ["locals", "vars", "globals", "exec", "eval", "_getframe", "dir", "currentframe"]
)


def splits_loosely(node: ast.ClassDef, plain_classes: set[str]) -> bool:
    """Whether binding a name in the namespace of ``node`` (a plain class left in the module
    unit) is seen only by who looks the name up: no hook sees that namespace whole (no
    decorator, metaclass or library base) and no statement of the body reads it by
    string."""
    reads = import_time_names(node)
    return is_plain(node, plain_classes) and _NAMESPACE_READS.isdisjoint(reads)


def loose_methods(
    node: ast.ClassDef, plain_classes: set[str], apart: frozenset[int] = frozenset()
) -> tuple[Member, ...]:
    """Of a plain class that is no binding (a statement of its body has effects or cannot
    be judged: a decorator imported from elsewhere), the methods that only build, as
    members of their own (``C.m``): defining one binds a name in the class namespace and
    does nothing else (``splits_loosely``). The rest of the class stays in the module
    unit, and a statement there reading a method's name reads its unit; a method whose
    name the class body reads leaves a marker there (``markers``), as the order of the two
    decides what the reader finds. ``apart``: the statements (by id) that are members of
    their own with order markers of their own (``rts.loose_assignments``): their reads
    leave no marker."""
    if not splits_loosely(node, plain_classes):
        return ()
    loose = [
        stmt
        for stmt in node.body
        if isinstance(stmt, _Def) and not is_dunder(stmt.name) and def_is_pure(stmt)
    ]
    read = set().union(*(import_time_names(s) for s in node.body if id(s) not in apart))
    members = []
    for stmt in loose:
        first = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)])
        end = (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
        refs = frozenset(import_time_names(stmt))
        marker = (f"<def:{stmt.name}>",) if stmt.name in read else ()
        name = (f"{node.name}.{stmt.name}",)
        members.append(Member(name, (first, stmt.col_offset), end, refs, marker, True))
    return tuple(members)


def assigned_names(stmt: ast.stmt) -> tuple[str, ...] | None:
    """Names a class-level assignment of a value without effects binds; None otherwise."""
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        targets = [stmt.target]
    else:
        return None
    names: list[str] = []
    for target in targets:
        elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        if not all(isinstance(e, ast.Name) for e in elements):
            return None
        names.extend(e.id for e in elements if isinstance(e, ast.Name))
    if any(map(is_dunder, names)) or not is_pure(stmt):
        return None
    return tuple(names)


def order_markers(reads: Iterable[str], before: set[str], bound: set[str]) -> tuple[str, ...]:
    # In a class body a name read before the class binds it is the module's.
    return tuple(
        f"<{name}:{'before' if name in before else 'after'}>" for name in sorted(set(reads) & bound)
    )


def class_members(
    node: ast.ClassDef, plain: bool
) -> tuple[list[Member], frozenset[str], frozenset[str]]:
    """The members of a binding class, the names the rest of the class reads, and those
    it reads only in its dunders' inert annotations (``header_parts.annotation_only_reads``:
    not the class unit's readers' dependencies)."""
    prefix = f"{node.name}."
    candidates: list[tuple[ast.stmt, tuple[str, ...], bool]] = []
    # A name the body fills after binding it stays with the class unit, where the
    # statements filling it are: its readers see them.
    filled = set(own_updates(node).values())
    for stmt in node.body:
        if isinstance(stmt, _Def) and not is_dunder(stmt.name):
            candidates.append((stmt, (prefix + stmt.name,), True))
        elif plain and (names := assigned_names(stmt)) is not None and filled.isdisjoint(names):
            candidates.append((stmt, tuple(prefix + n for n in names), False))
    bound = {name.rpartition(".")[2] for _, names, _ in candidates for name in names}
    members: list[Member] = []
    before: set[str] = set()
    for stmt, names, is_def in candidates:
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
        end = (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
        refs = class_scope_refs(stmt, node, frozenset([node.name]))
        start = (first, stmt.col_offset)
        members.append(Member(names, start, end, refs, order_markers(refs, before, bound), is_def))
        before.update(n.rpartition(".")[2] for n in names)
    taken = {id(stmt) for stmt, _, _ in candidates}
    rest = [s for s in node.body if id(s) not in taken]
    refs = frozenset().union(
        *(class_scope_refs(stmt, node, frozenset()) - annotation_only_reads(stmt) for stmt in rest),
        *map(import_time_names, [*node.bases, *node.decorator_list]),
        *(import_time_names(k.value) for k in node.keywords),
    )
    noted = frozenset().union(*map(annotation_only_reads, rest)) - refs
    return members, refs, noted


class _Method(Body, Protocol):
    @property
    def first_line(self) -> int: ...


_M = TypeVar("_M", bound=_Method)


def own_methods(members: Iterable[Member], methods: Iterable[_M]) -> list[_M]:
    """The ``methods`` of a class whose headers are in its own unit: those in no member
    (dunders, a nested class's methods)."""
    members = list(members)
    return [s for s in methods if not any(m.start[0] <= s.first_line <= m.end[0] for m in members)]


def class_texts(
    start: Pos,
    end: Pos,
    members: Iterable[Member],
    text: TokenText,
    methods: Iterable[_M],
    docs: Iterable[tuple[Pos, Pos]] = (),
    header_parts: Mapping[_M, list[tuple[Pos, Pos, str]]] | None = None,
) -> tuple[list[str], list[list[str]]]:
    """The class unit's tokens (members and the strings ``docs`` left out, the bodies of
    the other methods as markers, the ``header_parts`` of their headers too: default values
    and annotations, ``rts.header_parts``) and each member's: an assignment's tokens, a
    method's order markers (its header unit has its tokens)."""
    members = list(members)
    holes = [(m.start, m.end, "") for m in members]
    # Even whether there is a docstring: the doc unit says.
    holes += [(start, end, "") for start, end in docs]
    for method in own_methods(members, methods):
        holes.append((method.body_start, method.body_end, "<body>"))
        holes += header_parts.get(method, []) if header_parts is not None else []
    own = text.without(start, end, sorted(holes))
    # The line end and dedents closing the last token kept, when a member left out follows
    # it at the end of the class (a plain method appended after ``__init__``): the class's
    # end closes every block, so they tell nothing the tokens before do not.
    while own and own[-1] in ("<newline>", "<dedent>"):
        own.pop()
    texts = [[*(() if m.is_def else text.without(m.start, m.end, ())), *m.markers] for m in members]
    return own, texts


def class_aliases(node: ast.ClassDef, prefix: str) -> Iterator[str]:
    """``C.x`` (``prefix`` ``C.``) for every name the body of class ``node`` binds, nested
    classes' included (``bindings.Binding.aliases``)."""
    for stmt in class_body(node):
        if isinstance(stmt, ast.ClassDef):
            yield f"{prefix}{stmt.name}"
            yield from class_aliases(stmt, f"{prefix}{stmt.name}.")
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for target in _assigned(stmt):
                yield f"{prefix}{target}"


def _assigned(stmt: ast.stmt) -> Iterator[str]:
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets = [stmt.target]
    for target in targets:
        for item in walk(target):
            if isinstance(item, ast.Name):
                yield item.id
