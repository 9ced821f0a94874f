"""What a class statement sees of a class it names as a base or in an annotation: not
that class's whole unit.

``class TornadoRetrying(BaseRetrying)`` in tenacity's ``tornadoweb.py`` (imported by the
package ``__init__`` that every test imports) stays in its module unit, or has a frame that
may raise (``rts.raising_units``): either way every importer read ``BaseRetrying``, and the
step from that name reached the base's class unit, dunders' headers included. A parameter
added to ``BaseRetrying.__init__`` (39eb157, cb320c4) selected every test of the suite
(pytest-testmon: the tests that ran it). Making the subclass runs none of the base's plain
methods: ``type`` looks at the base's header (its bases, metaclass, decorators), at the
members it and its hooks treat specially (``class_frames.TYPE_NAMES``: ``__slots__``,
``__init_subclass__``, ``__set_name__``...), at any other class-level value (an abstract
one's descriptor may run), while a hook that ran was traced (``rts.creation_hooks``). An
annotation evaluated at import (``-> t.Generator[AttemptManager, None, None]`` in
``AsyncRetrying``'s frame: 124e3a6 gave ``AttemptManager`` two dunders) sees no more of a
class it names as a type (a whole annotation, an argument of a subscript, an operand of
``|``): ``typing`` checks it is callable, ``|`` asks its metaclass.

So each top-level class with a unit of its own has a unit ``C.<subclass>``
(``unit_names.SUBCLASSING``): the statement less its plain methods (bodies as ``pass``)
and docstrings, with its order markers; it reads what that part reads. A name a class
statement reads only as a bare base or as a type in its members' annotations, when the
statement has no decorator and no keyword (a class decorator, a metaclass of its own, sees
every inherited member and every annotation), is read as its twin ``<type>name``
(``unit_names.TYPE_READ``): the step from the twin reaches a class's ``C.<subclass>``
unit, follows a ``from`` import as a twin, and any other binding whole. The module unit
reads the twin only where the recording finds every such class made by ``type``'s and
``typing``'s code alone (``class_hooks.made_without_hooks``): a library's metaclass or
``__init_subclass__`` (not traced) may read any member of a base, or any annotation.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterable

from lsp_server.rts.ast_walk import unshared
from lsp_server.rts.class_frames import TYPE_NAMES
from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.header_parts import is_inert
from lsp_server.rts.import_digest import import_time_digest
from lsp_server.rts.purity import import_time_names, is_string_statement
from lsp_server.rts.tokens import digest
from lsp_server.rts.unit_names import MODULE, SUBCLASSING, TYPE_READ

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_OWNED = ":"  # ``<type>Sub:Base`` while a module's layout is built: read by class ``Sub``


def type_read(name: str) -> str:
    """The twin of ``name`` read only as a type (a base, an annotation)."""
    return TYPE_READ + name


def read_name(name: str) -> str:
    """The name a read stands for (a twin's plain name)."""
    return name[len(TYPE_READ) :] if name.startswith(TYPE_READ) else name


def types_only(stmt: ast.stmt) -> frozenset[str]:
    """The names the class statement ``stmt`` reads only as bare bases or as types in the
    annotations of its members (``_type_names``), when it has no decorator and no keyword;
    none for any other statement."""
    if not isinstance(stmt, ast.ClassDef) or stmt.decorator_list or stmt.keywords:
        return frozenset()
    typed = [base for base in stmt.bases if isinstance(base, ast.Name)]
    for member in stmt.body:
        typed += [name for note in _annotations(member) for name in _type_names(note)]
    if not typed:
        return frozenset()
    with unshared():  # the tree changes in place meanwhile (``ast_walk.shared_walks``)
        spelled = [name.id for name in typed]
        try:
            for name in typed:
                name.id = _OWNED
            elsewhere = import_time_names(stmt)
        finally:
            for name, spelling in zip(typed, spelled, strict=True):
                name.id = spelling
    return frozenset(spelled).difference(elsewhere)


def _annotations(member: ast.stmt) -> list[ast.expr]:
    """The annotations a class body's statement evaluates (a method's, an annotated
    assignment's) that can do nothing but raise (``header_parts.is_inert``)."""
    if isinstance(member, ast.AnnAssign):
        notes = [member.annotation]
    elif isinstance(member, _DEFS):
        args = member.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        notes = [a.annotation for a in every if a is not None and a.annotation is not None]
        notes += [member.returns] if member.returns is not None else []
    else:
        return []
    return [note for note in notes if is_inert(note)]


def _type_names(note: ast.expr) -> list[ast.Name]:
    """The names ``note`` uses as types: itself, an argument of a subscript, an element of
    a list or tuple there, an operand of ``|``. Not the subscripted value (its
    ``__class_getitem__`` runs) nor an attribute's owner (its member is read)."""
    if isinstance(note, ast.Name):
        return [note]
    if isinstance(note, ast.Subscript):
        return _type_names(note.slice)
    if isinstance(note, (ast.Tuple, ast.List)):
        return [name for element in note.elts for name in _type_names(element)]
    if isinstance(note, ast.BinOp) and isinstance(note.op, ast.BitOr):
        return _type_names(note.left) + _type_names(note.right)
    return []


def as_types_read(stmt: ast.stmt, reads: set[str]) -> set[str]:
    """``reads`` of the top-level statement ``stmt`` (a class of the module unit), those it
    reads only as types noted as read by it as such (``settle_type_reads`` sorts them)."""
    only = types_only(stmt) & reads
    if not only:
        return reads
    assert isinstance(stmt, ast.ClassDef)
    return (reads - only) | {owned_type_read(stmt.name, name) for name in only}


def owned_type_read(owner: str, name: str) -> str:
    return f"{TYPE_READ}{owner}{_OWNED}{name}"


def classes_types_only(tree: ast.Module) -> dict[str, frozenset[str]]:
    """``types_only`` of each top-level class whose name one class statement binds."""
    classes = [stmt for stmt in tree.body if isinstance(stmt, ast.ClassDef)]
    once = {name for name, count in Counter(c.name for c in classes).items() if count == 1}
    return {c.name: only for c in classes if c.name in once and (only := types_only(c))}


def add_subclass_units(result: FileUnits, tree: ast.Module, markers: dict[str, list[str]]) -> None:
    """The ``C.<subclass>`` unit of each class of ``result.classes`` one top-level class
    statement binds (``markers``: the order markers by binding name), with what it reads;
    then the type reads of ``result.residue_refs`` sorted (``settle_type_reads``)."""
    classes = [stmt for stmt in tree.body if isinstance(stmt, ast.ClassDef)]
    counts = Counter(stmt.name for stmt in classes)
    for stmt in classes:
        if stmt.name in result.classes and counts[stmt.name] == 1:
            unit = stmt.name + SUBCLASSING
            seen, reads = _subclass_part(stmt)
            result.checksums[unit] = digest([seen, *markers.get(stmt.name, ())])
            only = types_only(stmt) & reads
            result.refs[unit] = frozenset(reads - only).union(map(type_read, only))
    settle_type_reads(result)


def _subclass_part(stmt: ast.ClassDef) -> tuple[str, set[str]]:
    """The digest of what making a subclass sees of class ``stmt`` and the names that part
    reads: the statement without its plain methods and its strings."""
    body = stmt.body
    kept = [
        s
        for s in body
        if not (isinstance(s, _DEFS) and not s.decorator_list and s.name not in TYPE_NAMES)
        and not is_string_statement(s)
    ]
    with unshared():  # the tree changes in place meanwhile (``ast_walk.shared_walks``)
        stmt.body = kept or [ast.Pass()]
        try:
            return import_time_digest(stmt), import_time_names(stmt)
        finally:
            stmt.body = body


def settle_type_reads(result: FileUnits) -> None:
    """Of the names ``result.residue_refs`` holds as read by a class only as a type, those
    the module unit reads no other way go into ``result.subclassed``; the plain names stay
    in ``residue_refs`` (what its statements spell)."""
    owned = [name for name in result.residue_refs if name.startswith(TYPE_READ)]
    if not owned:
        return
    readers: dict[str, set[str]] = {}
    for name in owned:
        owner, _, base = name[len(TYPE_READ) :].partition(_OWNED)
        readers.setdefault(base, set()).add(owner)
    plain = result.residue_refs.difference(owned)
    result.subclassed = {n: frozenset(o) for n, o in readers.items() if n not in plain}
    result.residue_refs = plain.union(readers)


def twin_split(
    file_units: FileUnits,
    unit_name: str,
    refs: frozenset[str],
    made_plain: Callable[[str, str], bool],
) -> tuple[frozenset[str], frozenset[str]]:
    """(read anywhere, read only as the module's globals) of what unit ``unit_name``'s
    statement reads (``refs``; the module unit's: its residue's). A name the module unit
    reads only as a type in classes the recording found made plain (``made_plain``: path,
    class name) is read as its twin; a twin is read only as a global where its name is."""
    if unit_name == MODULE and file_units.subclassed:
        path = file_units.path
        twins = {
            name
            for name, owners in file_units.subclassed.items()
            if all(made_plain(path, owner) for owner in owners)
        }
        refs = (refs - twins).union(map(type_read, twins))
    own_names = file_units.own_globals(map(read_name, refs))
    own = frozenset(name for name in refs if read_name(name) in own_names)
    return refs - own, own


def spells_twin(names: Iterable[str]) -> bool:
    return any(name.startswith(TYPE_READ) for name in names)


def twins_read(file_units: FileUnits) -> set[str]:
    """The names whose twins the steps from this module's units may read: its module
    unit's (``subclassed``), its ``SUBCLASSING`` units' and, as a twin read of a name its
    ``from`` import binds goes on to the name imported, those."""
    found = set(file_units.subclassed)
    for unit, refs in file_units.refs.items():
        if unit.endswith(SUBCLASSING):
            found.update(read_name(name) for name in refs if name.startswith(TYPE_READ))
    found.update(imported for _, _, imported in file_units.from_imports.values())
    return found
