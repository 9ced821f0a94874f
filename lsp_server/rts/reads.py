"""The names a test reads, and the binding units they lead to.

A function's code object lists the global and attribute names it reads (``co_names``);
string constants that look like names (``getattr(obj, "x")``, ``mock.patch("m.f")``,
fixture names) count as reads too. Code that looks names up by a computed string
(``globals()``, ``vars``, ``getattr`` with a variable...) can read anything: a test that ran
such code depends on every unit of every module it depends on.

Names are recorded with each test under the pseudo path ``NAMES`` so that a binding added
later (a new function shadowing a builtin or an imported name, a new attribute of a class)
selects exactly the tests that read its name. A name code reads only as a global
(``LOAD_GLOBAL``...) can only be found in its own module's namespace or the builtins, so it
is recorded for that module alone (``units.module_read``): a binding of the same name in
another module does not select the test.
"""

from __future__ import annotations

import dis
import inspect
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from types import CodeType

from lsp_server.rts.annotation_stores import stores_annotations_only
from lsp_server.rts.copied_defaults import DEFAULTS_READS, copies_defaults_only
from lsp_server.rts.kept_code_analyses import kept_by_content
from lsp_server.rts.line_stores import line_store_marks
from lsp_server.rts.lookups import (
    ANNOTATION_READS,
    ATTRIBUTE_LOOKUP,
    DYNAMIC_NAMES,
    INSPECT_SIGNATURES,
    SESSION_LISTINGS,
)
from lsp_server.rts.module_table_keys import asks_presence, lists_modules
from lsp_server.rts.namespace_keys import without_namespace_keys
from lsp_server.rts.qualname_constants import read_constants
from lsp_server.rts.unit_names import NAMES
from lsp_server.rts.unpacked_formats import code_formats_unpacked

__all__ = [
    "EVERY_NAME",
    "LISTED_NAMES",
    "NAMES",
    "NEEDED_BY_IMPORT",
    "SESSION_LISTING",
    "builds_classes",
    "code_reads",
    "with_listing",
]

EVERY_NAME = "*"
"""The ``NAMES`` unit of a test that may read any name: any new binding selects it."""

NEEDED_BY_IMPORT = "<from>"
"""Prefix of the ``NAMES`` name (``<from>x@path``) of a test whose modules ``from path
import x``: the import fails once ``path`` binds ``x`` no more, so a top-level binding of
``x`` removed from ``path`` selects the test. A new one does not: what ``x`` is bound to
is seen only by who reads it, as any other name."""

SESSION_LISTING = "<listing>"
"""The ``NAMES`` name of a test whose code read one of ``lookups.SESSION_LISTINGS`` (as an
attribute, an import or a string, not as a global): any change anywhere and any new test
file select it (``rts.session_listings``)."""

LISTED_NAMES = "<all>"
"""The ``NAMES`` name (``<all>@path``) of a test whose modules ``from path import *``: the
import fails once a name ``path``'s ``__all__`` lists is bound no more, so a top-level
binding removed from ``path`` selects the test (new names do not: they are found only by
who reads them)."""

# Instructions that look a name up in the module's namespace (then the builtins).
_GLOBAL_OPS = frozenset(
    dis.opmap[name]
    for name in (
        "LOAD_GLOBAL",
        "STORE_GLOBAL",
        "DELETE_GLOBAL",
        "LOAD_NAME",
        "STORE_NAME",
        "DELETE_NAME",
        "LOAD_FROM_DICT_OR_GLOBALS",  # 3.12+
    )
    if name in dis.opmap
)

_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]
# Its name is a module's: looked up in ``sys.modules`` and the finders, in no namespace.
_IMPORT_NAME = dis.opmap["IMPORT_NAME"]


def _name_arg_shifts() -> dict[int, int]:
    """Opcode -> how far its argument is shifted right to index ``co_names``: some
    instructions keep flags in the low bits (LOAD_GLOBAL from 3.11, LOAD_ATTR from 3.12,
    LOAD_SUPER_ATTR)."""
    shifts = dict.fromkeys(dis.hasname, 0)
    low_bit = {"LOAD_GLOBAL": (3, 11), "LOAD_ATTR": (3, 12)}
    for name, since in low_bit.items():
        if sys.version_info >= since:
            shifts[dis.opmap[name]] = 1
    if "LOAD_SUPER_ATTR" in dis.opmap:
        shifts[dis.opmap["LOAD_SUPER_ATTR"]] = 2
    return shifts


NAME_ARG_SHIFTS = _name_arg_shifts()
_CONST_OPS = frozenset(dis.hasconst)
_VARIABLE_OPS = frozenset((*dis.haslocal, *dis.hasfree))


def instruction_arguments(code: CodeType) -> Iterator[tuple[int, int, object]]:
    """(offset, opcode, ``dis`` argval) of each instruction of ``code`` whose argument may
    spell a name. On 3.12 straight from the bytecode, for the instructions that take a
    constant, a name or a variable (the others' argvals are numbers, comparison operators
    and conversion functions): ``dis`` builds an object per instruction, 0.14 s for one
    toolz test function that assertion rewriting made 9,000 instructions long. Elsewhere
    (other bytecode: 3.13 loads two variables at once) every instruction, from ``dis``."""
    if sys.version_info[:2] != (3, 12):
        yield from ((ins.offset, ins.opcode, ins.argval) for ins in dis.get_instructions(code))
        return
    raw, consts, names = code.co_code, code.co_consts, code.co_names
    extended = 0
    for offset in range(0, len(raw), 2):
        # ``co_code`` is unspecialized and its inline caches are zeros (opcode CACHE).
        opcode = raw[offset]
        arg = raw[offset + 1] | extended
        extended = arg << 8 if opcode == _EXTENDED_ARG else 0
        if opcode in _CONST_OPS:
            yield offset, opcode, consts[arg]
        elif (shift := NAME_ARG_SHIFTS.get(opcode)) is not None:
            yield offset, opcode, names[arg >> shift]
        elif opcode in _VARIABLE_OPS:
            yield offset, opcode, code._varname_from_oparg(arg)


_NAME_OPS_BY_NAME = frozenset(dis.opname[op] for op in NAME_ARG_SHIFTS)

_CLASS_HOOKS = frozenset(("__init_subclass__", "__set_name__", "__prepare__", "__mro_entries__"))


def string_parts(value: object) -> set[str]:
    """The name-like parts of a string constant, or of the strings of a constant tuple or
    frozenset (``"a.b:c"`` -> a, b, c): what a code object holding it counts as reading."""
    texts = [value] if isinstance(value, str) else []
    if isinstance(value, (tuple, frozenset)):
        texts = [item for item in value if isinstance(item, str)]
    return {
        part
        for text in texts
        if 0 < len(text) < 200
        for part in text.replace(":", ".").split(".")
        if part.isidentifier()
    }


@kept_by_content
def code_reads(code: CodeType) -> tuple[frozenset[str], frozenset[str], bool]:
    """Names ``code`` reads (not its nested code objects': they count when they run) as
    attributes, imports or strings; those it reads only as globals of its module; and
    whether it looks names up dynamically."""
    names = set(code.co_names)
    uses = _name_uses(code) if names else _NO_USES
    # A name only stored into the namespace (a class body binding its methods) reads no
    # binding; an attribute store does (``elsewhere``: a property may take it).
    stored_only = uses.stored - uses.loaded - uses.elsewhere
    global_only = uses.as_global - uses.elsewhere - stored_only
    # ``import os`` anywhere reads no binding named ``os`` (what it binds, and the names
    # then read off the module, are other instructions): click e1fd5946 bound ``os`` in
    # termui, and the 1,583 tests that ran an ``import os`` reran.
    names -= global_only | stored_only | (uses.imported - uses.elsewhere)
    if "__doc__" in global_only and _class_body_doc_first(code):
        global_only.discard("__doc__")  # its own docstring: ``rts.class_doc_reads``
    strings = set().union(*map(string_parts, without_namespace_keys(code, read_constants(code))))
    names.update(strings)
    if "__doc__" in names and _stores_doc(code, uses):
        # A wrapper copying a docstring: it shows only to whoever reads __doc__ later.
        names.discard("__doc__")
    if "__code__" in names and _keeps_code_only(code):
        names.discard("__code__")
    if not DEFAULTS_READS.isdisjoint(names) and copies_defaults_only(code):
        names -= DEFAULTS_READS  # copied onto a wrapper that ignores them
    global_only -= names
    # ``self.lineno = lineno`` reads no line: ``rts.line_stores``.
    names |= line_store_marks(names | global_only, uses.stored - uses.loaded - strings)
    by_key = "modules" in uses.elsewhere - strings and not lists_modules(code)
    by_key = by_key and not asks_presence(code)  # ``rts.module_presence``
    if not SESSION_LISTINGS.isdisjoint(names - {"modules"} if by_key else names):
        names.add(SESSION_LISTING)
    # Loaded: a class body defining a method ``signature`` (jinja's CodeGenerator) only
    # stores the name.
    if not INSPECT_SIGNATURES.isdisjoint(uses.as_global & uses.loaded) or (
        "inspect" in uses.loaded and not INSPECT_SIGNATURES.isdisjoint(uses.elsewhere)
    ):
        names.add("__signature__")  # reads signatures, default values included
    annotations_read = ANNOTATION_READS & (names | global_only)
    if annotations_read == {"__annotations__"} and stores_annotations_only(code):
        if _is_class_body(code):
            # Its own namespace's dict, which ``SETUP_ANNOTATIONS`` made unless a statement
            # of the class bound one: no function's annotations (tenacity's ``IterState``).
            global_only.discard("__annotations__")
    elif annotations_read:
        names.add(ATTRIBUTE_LOOKUP)  # every annotated attribute: any class member
    # ``__doc__`` by name is the module's docstring (``rts.module_docstring``) or, in a
    # class body, the class's; never a function's.
    # A class body defining ``__getattr__`` looks nothing up (the method's code counts
    # when it runs): only a use other than binding or unbinding is dynamic.
    dynamic = not DYNAMIC_NAMES.isdisjoint(uses.loaded) or code_formats_unpacked(code)
    return frozenset(names), frozenset(global_only), dynamic


def with_listing(names: set[str]) -> set[str]:
    """``names`` looked up as some code ran, and ``SESSION_LISTING`` when one of them
    lists state of the session (``code_reads`` tells its bytecode's reads of ``modules``
    by key apart: ``rts.module_table_keys``)."""
    return names if SESSION_LISTINGS.isdisjoint(names) else names | {SESSION_LISTING}


@dataclass(frozen=True)
class NameUses:
    """How a code object's instructions use the names of ``co_names``: in module-namespace
    lookups (``as_global``), as the module an ``import`` statement looks up (``imported``)
    or elsewhere (attributes, ``from`` imports); stored (``STORE_*``); used other than to
    store or delete (``loaded``)."""

    as_global: set[str]
    elsewhere: set[str]
    stored: set[str]
    loaded: set[str]
    imported: set[str]


_NO_USES = NameUses(set(), set(), set(), set(), set())
_STORE_OPS = frozenset(op for op in dis.hasname if dis.opname[op].startswith("STORE_"))
_DELETE_OPS = frozenset(op for op in dis.hasname if dis.opname[op].startswith("DELETE_"))


def _name_uses(code: CodeType) -> NameUses:
    """Read straight from the bytecode: ``dis.get_instructions`` builds an object per
    instruction and took a tenth of a recorded run (every function a test runs is read
    once). ``tests/rts/test_reads_bytecode.py`` checks the result against ``dis``."""
    names = code.co_names
    uses = NameUses(set(), set(), set(), set(), set())
    raw = code.co_code
    extended = 0
    for index in range(0, len(raw), 2):
        opcode = raw[index]
        arg = raw[index + 1] | extended
        if opcode == _EXTENDED_ARG:
            extended = arg << 8
            continue
        extended = 0
        shift = NAME_ARG_SHIFTS.get(opcode)
        if shift is not None:
            name = names[arg >> shift]
            if opcode in _GLOBAL_OPS:
                uses.as_global.add(name)
            else:
                (uses.imported if opcode == _IMPORT_NAME else uses.elsewhere).add(name)
            if opcode in _STORE_OPS:
                uses.stored.add(name)
            elif opcode not in _DELETE_OPS:
                uses.loaded.add(name)
    return uses


def _global_only(code: CodeType) -> set[str]:
    """The names of ``co_names`` that ``code`` uses only in module-namespace lookups."""
    uses = _name_uses(code)
    return uses.as_global - uses.elsewhere


def _stores_doc(code: CodeType, uses: NameUses) -> bool:
    """Whether ``code`` stores a ``__doc__`` (a wrapper copying a docstring, which shows it
    only to whoever reads ``__doc__`` later; a class body setting its own docstring): as an
    attribute or global, or (rarely) as a local variable so named."""
    if "__doc__" in uses.stored:
        return True
    local_names = (*code.co_varnames, *code.co_cellvars, *code.co_freevars)
    return "__doc__" in local_names and any(
        ins.opname.startswith("STORE_") and ins.argval == "__doc__"
        for ins in dis.get_instructions(code)
    )


def _is_class_body(code: CodeType) -> bool:
    return not (code.co_flags & inspect.CO_NEWLOCALS or code.co_name == "<module>")


def _class_body_doc_first(code: CodeType) -> bool:
    """Whether ``code`` is a class body that binds ``__doc__`` (its docstring) before any
    instruction reads it: every read by name finds the class's own (``__doc__`` rebound
    later is a statement of the same class)."""
    if not _is_class_body(code):
        return False
    for ins in dis.get_instructions(code):
        if ins.argval == "__doc__" and ins.opcode in dis.hasname:
            return ins.opname == "STORE_NAME"
    return False


_METHOD_LOADS = frozenset(["LOAD_METHOD", "LOAD_ATTR"])
_NAME_LOADS = frozenset(["LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_FAST"])


def _keeps_code_only(code: CodeType) -> bool:
    """Whether each ``__code__`` that ``code`` reads is a local's, handed straight to a
    named container's ``add`` with the result dropped (jinja's ``internalcode``:
    ``internal_code.add(f.__code__)``). Kept so, the code object is consulted by identity
    later: code objects compare equal only to code compiled from the same definition
    (same name, first line and bytecode), so no body shows through the set. A project
    ``add`` counts when it runs (traced)."""
    ops = [ins for ins in dis.get_instructions(code) if ins.opname != "PRECALL"]
    found = False
    for at, ins in enumerate(ops):
        if ins.argval != "__code__" or ins.opname not in _NAME_OPS_BY_NAME:
            continue
        if not (
            ins.opname == "LOAD_ATTR"
            and 3 <= at < len(ops) - 2
            and ops[at - 1].opname == "LOAD_FAST"
            and ops[at - 2].opname in _METHOD_LOADS
            and ops[at - 2].argval == "add"
            and ops[at - 3].opname in _NAME_LOADS
            and ops[at + 1].opname in ("CALL", "CALL_METHOD")
            and ops[at + 1].arg == 1
            and ops[at + 2].opname == "POP_TOP"
        ):
            return False
        found = True
    return found


def builds_classes(code: CodeType) -> bool:
    """Whether ``code`` is a hook that runs when a class statement runs: it may record every
    class (a registry) or read every attribute of it, so a new class or attribute anywhere
    in the module can matter to a test that reads none of their names. A metaclass's
    ``__new__``/``__init__`` is told by its signature (metaclass, name, bases, namespace)."""
    if code.co_name in _CLASS_HOOKS:
        return True
    return (
        code.co_name in ("__new__", "__init__")
        and code.co_argcount >= 4
        and (
            code.co_varnames[0] in ("mcs", "mcls", "metacls", "meta", "metaclass", "cls")
            and code.co_varnames[2] == "bases"
        )
    )
