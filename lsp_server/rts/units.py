"""Units of code whose checksums the dependency store tracks, and their checksums. A unit
is a function or method (any ``def``, nested ones included, named by its ``__qualname__``:
``f.<locals>.g``), a *binding* outside function bodies, the module part of a Python file,
or a whole non-Python file.

A ``def`` is four units: its body (the function's unit, named by its qualified name: the
code after the docstring and the default values, what running it depends on), its header
(``f.<def>``: decorators but a literal parameter list, ``rts.parametrize_cases``,
parameters, which have defaults: what referring to the function depends on), its default
values and a dunder's inert annotations (``f.<defaults>``, ``rts.header_parts``, empty
without any: what a signature shows besides the header; their text is in the body unit
too, so a test that ran the function needs no more) and its docstring (``f.<doc>``,
empty without one: only code reading ``__doc__`` or the source sees it; see
``rts.lookups`` for when a reference sees the body, defaults and docstring). Empty units
are kept: adding the first default or docstring modifies a unit.

Outside function bodies (see ``rts.bindings``) each top-level statement that only binds
names is a unit of its own, named by what it binds: a ``def`` is its function's header
unit, a class is one unit (header, dunder methods' headers, class-level statements that
are no members) plus a unit per member (``rts.class_members``: a method's header unit,
``C.attr`` for an attribute of a plain class) and an alias unit ``C.attr`` of the class's
checksum for every other attribute its body binds, a plain assignment or an import of
standard-library modules is the unit of each name it binds. The module part is the rest:
other imports, calls and whatever else has effects at import (a plain class whose body has
effects stays there but for its methods and plain assignments: ``rts.loose_assignments``).
A new function or constant thus changes no recorded unit; tests find it by name
(``rts.reads``).

A function's text leaves out the bodies of the functions defined in it: a test that calls
``f`` but never the ``g`` that ``f`` defines does not depend on ``g``'s body. Running
``g`` makes a test depend on ``f`` as well (``enclosing``): what ``f`` computes before
defining ``g`` (a closure's variables, the wrapper a decorator factory returns) shapes
what ``g`` does. Lambdas and comprehensions belong to the function around them. A name
defined twice in one scope (``if``/``else`` variants, but a version guard's branch that does
not run: ``rts.version_guards``) is one unit whose checksum covers every definition.
Checksums are xxhash over normalized tokens (``rts.tokens``): reformatting changes none but
the places of code (``rts.layout_unit``).
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterable
from pathlib import Path

from lsp_server.project.text import parse_python
from lsp_server.rts.ast_walk import shared_walks
from lsp_server.rts.bindings import Binding, ModuleLayout, module_layout
from lsp_server.rts.bound_names import listed_names
from lsp_server.rts.class_frames import hooked_classes
from lsp_server.rts.class_members import class_texts, own_methods
from lsp_server.rts.deleted_names import deleted_names
from lsp_server.rts.file_snapshot import file_checksum
from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.first_imports import first_import_texts
from lsp_server.rts.from_imports import singly_imported, top_level_names
from lsp_server.rts.future import future_marks
from lsp_server.rts.gathered_listings import copying_functions, gathering_calls
from lsp_server.rts.getattr_branches import getattr_units
from lsp_server.rts.header_parts import ANNOTATION_MARK, holes_by_header
from lsp_server.rts.import_effects import note_import_effects
from lsp_server.rts.imported_wrappers import add_wrapped_units
from lsp_server.rts.layout_unit import layout_checksums
from lsp_server.rts.listing_units import LISTING, listing_units
from lsp_server.rts.lookups import DYNAMIC_NAMES, bindings_taken, import_origins
from lsp_server.rts.module_docstring import docstring_binding
from lsp_server.rts.needed_attributes import class_kinds, needed_attributes
from lsp_server.rts.open_namespace import opens_namespace
from lsp_server.rts.overload_stubs import overload_stubs
from lsp_server.rts.parametrize_cases import LiteralCases, add_cases, literal_cases
from lsp_server.rts.raising_units import add_raising_units
from lsp_server.rts.spans import LOCALS as _LOCALS
from lsp_server.rts.spans import UnitSpan, scan
from lsp_server.rts.tokens import (
    Pos,
    SourceError,
    TokenText,
    attribute_names,
    digest,
    normalized_tokens,
    source_tokens,
)
from lsp_server.rts.typing_casts import CAST_MARK, cast_holes, inside
from lsp_server.rts.unit_names import (
    DISPLAY_READ,
    DOC,
    FILE,
    FRAME,
    HEADER,
    HOOKS,
    IMPORTED,
    IMPORTING,
    MODULE,
    defaults_name,
    doc_name,
    header_name,
)
from lsp_server.rts.unpacked_formats import SPELLING as FORMAT_SPELLING
from lsp_server.rts.version_guards import resolve_guards

_HeaderParts = dict[UnitSpan, list[tuple[Pos, Pos, str]]]  # ``header_parts.holes_by_header``


def source_units(path: str, source: str) -> FileUnits:
    """Units and checksums of a Python source text; raises ``SourceError`` if it does not parse."""
    with shared_walks():  # the rules walk the same tree and statements: each walk once
        return _analysed(path, source)


def _analysed(path: str, source: str) -> FileUnits:
    try:  # what runs of version guards stands at the top level: ``rts.version_guards``
        tree = (guarded := resolve_guards(parse_python(source, path))).tree
    except (SyntaxError, ValueError) as exc:
        raise SourceError(f"{path}: {exc}") from exc
    text = TokenText(normalized_tokens(source, raw := source_tokens(source)))  # layout's too
    spans, imports, dynamic = scan(tree, text.lines_spelling(DYNAMIC_NAMES | {FORMAT_SPELLING}))
    children: dict[str | None, list[UnitSpan]] = {}
    for span in spans:
        children.setdefault(span.parent, []).append(span)
    result = FileUnits(path=path, definitions=spans, imports=imports, dynamic=dynamic)
    lines = source.splitlines()
    layout = module_layout(tree)
    docstring = docstring_binding(tree)
    if docstring is not None:
        layout.bindings.insert(0, docstring)
    future = future_marks(tree, spans, layout.bindings)
    holes = sorted(_residue_holes(layout, children.get(None, ())) + guarded.dead + guarded.headers)
    result.checksums[MODULE] = digest(
        text.without((0, 0), (len(lines) + 2, 0), holes)
        + layout.markers.get("", [])
        + ([future.marker] if future.marks(MODULE, False, False, False) else [])
    )
    guarded.add_dead_unit(result, text)
    casts, stubs = cast_holes(tree, lines), overload_stubs(spans, lines)
    cases = literal_cases(tree, lines)  # ``rts.parametrize_cases``
    stubbed = (frozenset(span.first_line for span in stubs), holes_by_header(spans, lines))
    variants = _function_texts(result, spans, children, text, stubbed[1], stubs, casts, cases)
    _add_bindings(result, layout, text, children.get(None, ()), variants, stubbed)
    _add_from_imports(result, layout, variants)
    variants.update(first_import_texts(tree, layout.from_imports))
    _add_loose(result, layout, text, variants)
    result.top_names, result.imported_only = top_level_names(tree), singly_imported(tree)
    result.call_sites = layout.call_sites
    note_import_effects(result, tree, layout)
    result.needed, result.hooked_classes = needed_attributes(tree), hooked_classes(layout.markers)
    result.deleted, result.partial_callees = deleted_names(tree), layout.callees
    result.gathering, result.copying = gathering_calls(tree), copying_functions(tree)
    if result.gathering:  # its code tells what it reads: ``rts.gathered_listings``
        result.residue_refs = result.residue_refs - {"__all__"}
    imported = (n for b in layout.bindings if b.is_import for n in b.names)
    importing = (name for name in variants if name.startswith(IMPORTING))
    result.import_units = frozenset(imported).union(result.from_imports, importing)
    result.import_origins, result.taken = import_origins(tree), bindings_taken(tree)
    future.mark(variants, result.spans.keys(), HEADER, DOC)
    result.open_namespace, result.attribute_names = opens_namespace(tree), attribute_names(text)
    if not result.open_namespace:
        result.listed = listed_names(tree, source)
    if LISTING in result.top_names:  # what a star import takes (rts.star_listings)
        result.checksums.update(listing_units(result.listed))
    variants.update(getattr_units(tree, text, lines) | class_kinds(tree))
    result.checksums.update((name, digest(texts)) for name, texts in variants.items())
    add_raising_units(result, layout, tree)
    for binding in layout.bindings:
        for alias in binding.aliases:
            if alias not in result.spans:
                result.checksums[alias] = result.checksums[binding.names[0]]
    add_wrapped_units(result, layout.wrappers)
    result.checksums.update(layout_checksums(source, spans, raw))  # ``rts.position_units``
    return result


def _function_texts(
    result: FileUnits,
    spans: list[UnitSpan],
    children: dict[str | None, list[UnitSpan]],
    text: TokenText,
    header_parts: _HeaderParts,
    stubs: set[UnitSpan],
    casts: list[tuple[Pos, Pos, str]],
    cases: dict[int, LiteralCases],
) -> dict[str, list[str]]:
    """The texts of each function's body (default values included, ``casts`` left out:
    ``rts.typing_casts``), docstring, header (less its ``cases``) and default values units,
    by unit name; ``result.spans`` gets each first definition; ``stubs``: ``overload_stubs``."""
    variants: dict[str, list[str]] = {}
    for span in spans:
        if span in stubs:  # what it shows is code: ``typing.get_overloads`` reads it
            variants.setdefault(span.name, []).extend(
                ["<overload>", *text.without((span.first_line, 0), span.body_end, ())]
            )
            continue
        # Children by name may include those of a same-named redefinition elsewhere.
        holes = [
            child
            for child in children.get(span.name, ())
            if span.first_line <= child.first_line <= span.last_line
        ]
        code_start = span.code_start or span.body_start
        body = _body_text(text, code_start, span.body_end, holes, casts)
        variants.setdefault(span.name, []).extend(body)
        docstring = text.without(span.body_start, code_start, ())
        variants.setdefault(doc_name(span.name), []).extend(docstring)
        parts = header_parts[span]
        header_gaps = sorted([*add_cases(result, variants, span, cases), *parts])
        header = text.without((span.first_line, 0), span.body_start, header_gaps)
        variants.setdefault(header_name(span.name), []).extend(header)
        values = variants.setdefault(defaults_name(span.name), [])
        for start, stop, marker in parts:
            value = [marker or ANNOTATION_MARK, *text.without(start, stop, ())]
            variants[span.name] += value
            values += value
        result.spans.setdefault(span.name, span)
    return variants


def _body_text(
    text: TokenText,
    start: Pos,
    end: Pos,
    children: list[UnitSpan],
    casts: list[tuple[Pos, Pos, str]],
) -> list[str]:
    """The tokens of a function's code from ``start`` to ``end``, its nested functions'
    bodies left out, and the ``cast(T,`` and ``)`` of its typing casts."""
    nested = [(child.body_start, child.body_end) for child in children]
    own_casts = inside(casts, start, end, nested) if casts else []
    if not own_casts:
        return text.between(start, end, children)
    holes = sorted([(low, high, "<body>") for low, high in nested] + own_casts)
    return [token for token in text.without(start, end, holes) if token != CAST_MARK]


def _residue_holes(
    layout: ModuleLayout, top_functions: Iterable[UnitSpan]
) -> list[tuple[Pos, Pos, str]]:
    """What the module unit leaves out: binding statements whole (without a trace, so that a
    new function changes nothing) and the bodies of the other top-level functions."""
    holes = [(b.start, b.end, "") for b in layout.bindings]
    # A loose method's markers say where the class body reads it; an assignment's are its own.
    holes += [(m.start, m.end, "".join(m.markers) if m.is_def else "") for m in layout.loose]
    holes += [(*fi.hole, "") for fi in layout.from_imports]
    ranges = [(b.start[0], b.end[0]) for b in layout.bindings]
    ranges += [(m.start[0], m.end[0]) for m in layout.loose]
    for span in top_functions:
        if not any(first <= span.first_line <= last for first, last in ranges):
            holes.append((span.body_start, span.body_end, "<body>"))
    return sorted(holes)


def _add_bindings(
    result: FileUnits,
    layout: ModuleLayout,
    text: TokenText,
    top_functions: Iterable[UnitSpan],
    variants: dict[str, list[str]],
    stubs: tuple[frozenset[int], _HeaderParts],
) -> None:
    """Texts of the binding units into ``variants``, and the name index of ``result``; an
    ``@overload`` stub's order markers (first lines ``stubs[0]``) go with its text, into
    the body unit: the stub binds nothing a reader of the name finds. ``stubs[1]``: each
    function's header parts (``header_parts.holes_by_header``)."""
    bound = result.bound
    for binding in layout.bindings:
        if binding.is_class:
            _add_class(result, binding, text, top_functions, variants, stubs)
        elif binding.takes:
            for name, taken in zip(binding.names, binding.takes, strict=True):
                variants.setdefault(name, []).extend(["<import>", taken])
        elif not binding.is_def:
            own = text.without(binding.start, binding.end, ())
            for name in binding.names:
                variants.setdefault(name, []).extend(own)
        for name in binding.names:
            unit = header_name(name) if binding.is_def else name
            variants.setdefault(unit, []).extend(layout.markers.get(name, ()))
            result.refs[unit] = result.refs.get(unit, frozenset()) | binding.refs
            result.noted.update({unit: binding.noted} if binding.noted else {})
            bound.setdefault(name, []).append(unit)
    for span in top_functions:
        if _LOCALS not in span.name:
            units = bound.setdefault(span.name.rpartition(".")[2], [])
            if header_name(span.name) not in units:
                units.append(header_name(span.name))
    result.residue_refs = layout.residue_refs
    # What a class's hooks see, and its frame: a unit each (``rts.class_frames``).
    # What a display table's reads may raise: a unit each (``rts.display_read_units``).
    variants.update(
        (n, list(m))
        for n, m in layout.markers.items()
        if n.endswith((HOOKS, FRAME)) or n.startswith(DISPLAY_READ)
    )


def _add_class(
    result: FileUnits,
    binding: Binding,
    text: TokenText,
    top_functions: Iterable[UnitSpan],
    variants: dict[str, list[str]],
    stubs: tuple[frozenset[int], _HeaderParts],
) -> None:
    """The units of a class that is a binding: its own, its doc's, its members'; the
    default-values units of the methods whose headers it holds, less their parts."""
    name = binding.names[0]
    (first, last), (stub_lines, parts) = (binding.start[0], binding.end[0]), stubs
    result.classes[name] = (first, last)
    methods = [s for s in top_functions if first <= s.first_line <= last]
    docs = [*([binding.doc] if binding.doc is not None else []), *binding.notes]
    own, member_texts = class_texts(
        binding.start, binding.end, binding.members, text, methods, docs, parts
    )
    variants.setdefault(name, []).extend(own)
    held = own_methods(binding.members, methods)
    signatures = tuple(defaults_name(s.name) for s in held if parts[s])
    for unit in (name, *binding.aliases) if signatures else ():
        result.class_signatures[unit] = signatures
    if binding.own_doc:
        doc = text.without(*binding.doc, ()) if binding.doc is not None else []
        for note in binding.notes:  # marked: one moved first becomes ``__doc__``
            doc += ["<note>", *text.without(*note, ())]
        variants.setdefault(doc_name(name), []).extend(doc)
    for member, member_text in zip(binding.members, member_texts, strict=True):
        for qualname in member.names:
            if member.is_def and member.start[0] in stub_lines:
                variants.setdefault(qualname, []).extend(member_text)
                continue
            unit = header_name(qualname) if member.is_def else qualname
            variants.setdefault(unit, []).extend(member_text)
            result.refs[unit] = member.refs
            if not member.is_def:
                result.bound.setdefault(qualname.rpartition(".")[2], []).append(qualname)
    for alias in binding.aliases:
        result.bound.setdefault(alias.rpartition(".")[2], []).append(alias)
        result.refs[alias] = binding.refs
        result.noted.update({alias: binding.noted} if binding.noted else {})


def _add_from_imports(
    result: FileUnits, layout: ModuleLayout, variants: dict[str, list[str]]
) -> None:
    """A unit per name a residue ``from`` import binds: which module and name it takes (the
    unit per module those statements import, ``IMPORTING``, is ``rts.first_imports``')."""
    for fi in layout.from_imports:
        module = "." * fi.level + fi.module
        for local, imported in fi.names:
            unit = IMPORTED + local
            variants.setdefault(unit, []).extend(["<from>", module, imported])
            result.refs[unit] = result.refs.get(unit, frozenset()) | {imported}
            units = result.bound.setdefault(local, [])
            if unit not in units:
                units.append(unit)
            result.from_imports[unit] = (fi.module, fi.level, imported)


def _add_loose(
    result: FileUnits, layout: ModuleLayout, text: TokenText, variants: dict[str, list[str]]
) -> None:
    """The units of the residue classes' members of their own (``rts.loose_assignments``):
    a method's header unit (its text is the header's), an assignment's unit per name."""
    loose: set[str] = set()
    for member in layout.loose:
        units = [header_name(member.names[0])] if member.is_def else list(member.names)
        own = [*text.without(member.start, member.end, ()), *member.markers]
        own = [] if member.is_def else own
        for unit in units:
            variants.setdefault(unit, []).extend(own)
            result.refs[unit] = result.refs.get(unit, frozenset()) | member.refs
            readers = result.bound.setdefault(unit.removesuffix(HEADER).rpartition(".")[2], [])
            if unit not in readers:
                readers.append(unit)
            loose.add(unit)
    result.loose, result.loose_reads = frozenset(loose), layout.loose_reads


def path_units(root: Path, file: Path) -> FileUnits:
    """Units of a file on disk; ``file`` may be absolute or relative to ``root``."""
    absolute = file if file.is_absolute() else root / file
    rel = absolute.relative_to(root).as_posix() if absolute.is_absolute() else absolute.as_posix()
    if absolute.suffix in (".py", ".pyw"):
        data = absolute.read_bytes()
        try:
            source = tokenize_decode(data)
        except (SyntaxError, UnicodeDecodeError) as exc:
            raise SourceError(f"{rel}: {exc}") from exc
        return source_units(rel, source)
    return FileUnits(path=rel, checksums={FILE: file_checksum(absolute.read_bytes())})


def tokenize_decode(data: bytes) -> str:
    """Decode Python source bytes honouring a PEP 263 coding cookie."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)
