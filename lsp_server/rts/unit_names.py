"""Names of the units the dependency store tracks (see ``rts.units``): the module part, a
whole file, a function's header, default values and docstring, a name a test read, a name
a ``from`` import binds, and what a unit's name tells about the binding it stands for."""

from __future__ import annotations

from collections.abc import Collection

from lsp_server.rts.spans import LOCALS as _LOCALS

MODULE = "<module>"
"""Name of the module-part unit of a Python file."""

FILE = "<file>"
"""Name of the unit that stands for a whole non-Python file."""

LAYOUT = "<layout>"
"""Name of the unit of a Python file's layout, comments and blank lines included
(``rts.layout_unit``): what places its module code and class bodies, and what reading its
source shows besides units."""

PLACES = "<places>"
"""Name of the unit of where a Python file's code sits, its ``LAYOUT`` less the text of its
comments and of its blank lines (``rts.layout_unit``): what a test reading only line
numbers (no source text) sees of its module code and class bodies."""

DEAD = "<dead>"
"""Name of the unit of the branches of a file's version guards that do not run here
(``rts.version_guards``): only a test that ran the module's code under other values
(``rts.dead_runs``), or read its source, sees it."""

NAMES = "<names>"
"""Pseudo path of the units that stand for the names a test read (see ``rts.reads``)."""


HEADER = ".<def>"
"""Suffix of a function's header unit: ``C.m.<def>`` is the header of ``C.m``."""


DOC = ".<doc>"
"""Suffix of a function's docstring unit: ``C.m.<doc>`` is the docstring of ``C.m``."""


DEFAULTS = ".<defaults>"
"""Suffix of the unit of a function's default values: ``C.m.<defaults>`` is what reading
the signature of ``C.m`` shows besides its header (``lookups.SIGNATURE_READS``)."""


LINES = ".<lines>"
"""Suffix of the unit of a function's place in its file, its first line and the layout of
its own lines (``rts.layout_unit``): what a test reading the line numbers of its code or
its source sees besides its units (``rts.position_units``)."""


PLACED = ".<places>"
"""Suffix of the unit of a function's place less its comments' text: its ``LINES`` unit
with comments and blank lines cut to empty lines (``rts.layout_unit``), what a test reading
only line numbers sees of it (``rts.position_units``)."""


HOOKS = ".<hooks>"
"""Suffix of the unit of what a class's hooks see when it is made (``rts.class_frames``):
``C.<hooks>`` is class ``C``'s."""


FRAME = ".<frame>"
"""Suffix of the unit of what may make a class statement raise besides its hooks: its
*frame*, bases and risky members (``rts.class_frames``). Every importer sees it when it is
new or changed; one gone cannot make the import fail (the class's ``HOOKS`` unit, gone too,
selects the tests whose recording saw a hook run)."""


SUBCLASSING = ".<subclass>"
"""Suffix of the unit of what making a subclass of a top-level class sees of it
(``rts.subclassing``): ``C.<subclass>`` is its header and the members ``type`` and its
hooks look at, without its plain methods."""

TYPE_READ = "<type>"
"""Prefix of the twin of a name a class statement reads only as one of its bases
(``rts.subclassing``): the step from it reaches a class's ``SUBCLASSING`` unit, not the
class unit. Its ``NAMES`` unit is the name's own."""

CLASS_KIND = ".<class>"
"""Suffix of the unit of a top-level name a class statement binds, telling how else it may
be bound (``C.<class>``, ``needed_attributes.class_kinds``): gone or changed, a base taken
from there may be no class now."""

CASE = ".<case>"
"""Infix of the unit of one case of a literal parameter list (``rts.parametrize_cases``):
``f.<case>DIGEST`` is the case of test function ``f`` with those values. It binds no name."""


IMPORTED = "<import>."
"""Prefix of the unit of a name a ``from`` import binds (``rts.from_imports``):
``<import>.f``, apart from a function ``f`` defined in the same file."""


IMPORTING = "<imports>"
"""Prefix of the unit of what the top-level ``from module import ...`` statements of a
file do besides binding names: importing ``module`` there (``<imports>.pkg.mod`` for a
relative one, by its leading dots); ``rts.import_statements`` tells who sees it."""


DISPLAY_READ = "<read>"
"""Prefix of the unit of one read (a name, attributes of a name) of the module's tables built
by displays alone (``rts.import_digest.display_read_nodes``), the only part of them that may
raise at import: ``<read>kinds.WORD``. Every importer sees it when it is new or changed; one
gone cannot make the import fail (``rts.display_read_units``)."""


RAISES = "<raises>"
"""Prefix of the unit of what may raise in a top-level binding (``rts.raising_units``):
``<raises>f`` for ``def f`` with a decorator, default or annotation that may raise. Every
importer sees it when it is new or changed; one gone cannot make the import fail."""


def raises_name(names: tuple[str, ...]) -> str:
    return RAISES + ",".join(names)


GETATTR_PARTS = "<getattr>"
"""Prefix of the units of a module ``__getattr__`` split per constant branch
(``rts.getattr_branches``): they bind no name."""


WRAPPED = "<wrapped>"
"""Prefix of the unit of a top-level ``def`` decorated by a name a ``from`` import takes
from a module that may be the project's, trusted to only wrap (``rts.imported_wrappers``):
``<wrapped>f@.base:checker``. Its checksum covers the ``def``'s header, docstring and
defaults; new, changed or gone, selection checks that the name is a wrapper there."""


def wrapped_name(function: str, module: str, level: int, name: str) -> str:
    return f"{WRAPPED}{function}@{'.' * level}{module}:{name}"


def wrapped_parts(unit_name: str) -> tuple[str, int, str] | None:
    """(module, leading dots, name) of a ``WRAPPED`` unit name; None for any other unit."""
    if not unit_name.startswith(WRAPPED):
        return None
    dotted, _, name = unit_name.rpartition("@")[2].rpartition(":")
    module = dotted.lstrip(".")
    return module, len(dotted) - len(module), name


def display_read_name(read: str) -> str:
    return DISPLAY_READ + read


def is_import_risk(unit_name: str) -> bool:
    """Whether the unit is part of what may make the import of its module fail, apart from
    any binding: every importer sees it new or changed, none sees it gone (a display
    table's read, a class's frame, a binding's risky parts)."""
    return unit_name.startswith((DISPLAY_READ, RAISES)) or unit_name.endswith(FRAME)


def importing_name(module: str, level: int) -> str:
    return IMPORTING + "." * level + module


def importing_parts(unit_name: str) -> tuple[str, int] | None:
    """(module, leading dots) of an ``IMPORTING`` unit name; None for any other unit."""
    if not unit_name.startswith(IMPORTING):
        return None
    dotted = unit_name.removeprefix(IMPORTING)
    module = dotted.lstrip(".")
    return module, len(dotted) - len(module)


def module_read(name: str, path: str) -> str:
    """The ``NAMES`` unit name of ``name`` read as a global of module ``path`` (only a
    binding there, or in a module it takes names from wholesale, can change what it finds)."""
    return f"{name}@{path}"


def read_parts(unit_name: str) -> tuple[str, str | None]:
    """(name, module path or None for a read anywhere) of a ``NAMES`` unit name."""
    name, at, path = unit_name.partition("@")
    return name, path if at else None


def header_name(function: str) -> str:
    return function + HEADER


def lines_name(function: str) -> str:
    return function + LINES


def places_name(function: str) -> str:
    return function + PLACED


def is_place(unit_name: str) -> bool:
    """A unit of where code sits in its file (a file's layout or places, a function's
    lines or places)."""
    return unit_name in (LAYOUT, PLACES) or unit_name.endswith((LINES, PLACED))


def doc_name(function: str) -> str:
    return function + DOC


def defaults_name(function: str) -> str:
    return function + DEFAULTS


def body_name(unit_name: str) -> str | None:
    """The function (body) unit of a header unit; None for any other unit."""
    return unit_name[: -len(HEADER)] if unit_name.endswith(HEADER) else None


def bound_name(unit_name: str) -> str | None:
    """The name a unit binds outside function bodies (``C.x`` -> ``x``, ``f.<def>`` ->
    ``f``); None for the module and file units, docstrings, default values, a class's hooks
    unit, functions nested in functions and the ``IMPORTING`` units."""
    if unit_name in (MODULE, FILE, LAYOUT, PLACES, DEAD):
        return None
    if _LOCALS in unit_name or CASE in unit_name:
        return None
    if unit_name.endswith((DOC, DEFAULTS, HOOKS, FRAME, LINES, PLACED, CLASS_KIND, SUBCLASSING)):
        return None
    if unit_name.startswith((IMPORTING, DISPLAY_READ, RAISES, GETATTR_PARTS, WRAPPED)):
        return None
    return (body_name(unit_name) or unit_name).rpartition(".")[2]


def taken_name(unit_name: str, removed: bool) -> str | None:
    """The top-level name whose ``from`` imports may fail, or take something else, once the
    unit ``unit_name`` is ``removed`` (else changed): a top-level binding's name removed
    (``f.<def>``, ``x``), a class's whose kind unit went or changed (``C.<class>``: ``C``
    may be no class now); else None."""
    if unit_name.endswith(CLASS_KIND):
        owner = unit_name.removesuffix(CLASS_KIND)
        return None if "." in owner else owner
    name = bound_name(unit_name) if removed else None
    return None if name is None or "." in (body_name(unit_name) or unit_name) else name


def newly_readable(added: Collection[str]) -> list[str]:
    """Of the units newly bound in a file (by name), those whose names a test may have read
    before they were bound (found elsewhere, or missing): every new binding but the members
    of a class that is new with them. No object had those attributes before, and a test
    reaching the new class reads its name (or a string naming it), which selects it."""
    fresh = set(added)
    return [name for name in added if bound_name(name) is not None and _owner(name) not in fresh]


def gone_with_class(name: str, gone: Collection[str], known: Collection[str]) -> bool:
    """Whether the unit ``name``, no longer in its file, is a member's binding (a method's
    header, an attribute) of a class that is ``gone`` as well: only objects of that class
    had it, and every test that reached the class read its name (it depends on the class
    unit, which selects it). ``known``: every unit name recorded for the file, which tells
    a method's body (it has a header unit) from an attribute ``C.x``: a test that ran a
    body depends on it as before. A method's docstring or default values (``C.m.<doc>``)
    go with its class too: only the function ``C.m`` had them."""
    if name.endswith((DOC, DEFAULTS)) and _LOCALS not in name:
        owner = name.rsplit(".<", 1)[0].rpartition(".")[0]
        return bool(owner) and owner in gone
    return bound_name(name) is not None and header_name(name) not in known and _owner(name) in gone


def _owner(name: str) -> str:
    """The class a member unit belongs to (``C.m.<def>``, ``C.x`` -> ``C``); "" for a
    top-level binding."""
    return (body_name(name) or name).rpartition(".")[0]
