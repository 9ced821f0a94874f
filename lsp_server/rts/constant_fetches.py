"""Modules fetched by a constant name: ``importlib.import_module("pkg.mod")``.

Code whose name reads no call site tells (``vars(module)``, a ``__dict__`` handed to a call)
and that fetches a module by name reads the session's listing (``rts.module_fetches``): a
computed name could fetch any module, one only another test's file imported among them.
When every fetch the code spells is a call with one argument, a constant absolute module
name, it fetches those modules and their packages only (the import system's answer for one
name, whatever else the session imported): the code depends on them as on modules it
imports (their module units, whose import footprints and bindings follow), and lists
nothing. toolz's ``test_curried_namespace`` (``import_module("toolz.curried.exceptions")``
beside ``vars(toolz)``) reran at every change of its history.

The modules are found in ``sys.modules`` once the code ran; one not there (its fetch not
reached yet, or failed) leaves the code reading the listing, as before.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable
from types import CodeType

from lsp_server.rts.deleted_modules import by_name
from lsp_server.rts.file_units import Unit
from lsp_server.rts.kept_code_analyses import kept_by_content
from lsp_server.rts.lookup_sites import call_site
from lsp_server.rts.session_listings import LISTING
from lsp_server.rts.unit_names import MODULE, NAMES

FETCHES_BY_NAME = frozenset(["import_module", "__import__"])
"""Lookup functions that return a module by its name, imported or not (``rts.module_fetches``)."""
LOADS = frozenset(
    ["LOAD_GLOBAL", "LOAD_NAME", "LOAD_ATTR", "LOAD_METHOD", "LOAD_FAST", "LOAD_DEREF"]
)
"""Loads of a fetch by name: a local's too (``import_module`` imported in a function)."""


def constant_fetches(code: CodeType) -> frozenset[str] | None:
    """The module names ``code``'s fetches by name spell, each a call with one argument,
    a constant absolute name; None when one is anything else (a computed or relative
    name, a ``package`` or ``fromlist`` argument, the function handed on or stored)."""
    if FETCHES_BY_NAME.isdisjoint(code.co_names):
        return frozenset()
    return _constant_fetches(code)


@kept_by_content
def _constant_fetches(code: CodeType) -> frozenset[str] | None:
    instructions = list(dis.get_instructions(code))
    names: set[str] = set()
    for index, ins in enumerate(instructions):
        if ins.argval not in FETCHES_BY_NAME or ins.opname not in LOADS:
            continue  # binding it (``from importlib import import_module``) fetches nothing
        found = call_site(instructions, index)
        if found is None:
            return None
        for arguments in found[1].values():
            name = arguments[0] if len(arguments) == 1 else None
            if name is None or name[0] != "const" or not _absolute(name[1]):
                return None
            names.add(str(name[1]))
    return frozenset(names)


def _absolute(name: object) -> bool:
    return type(name) is str and bool(name) and not name.startswith(".")


def fetched_units(code: CodeType, python_rel: Callable[[str], str | None]) -> tuple[Unit, ...]:
    """The units of the project modules ``code`` fetches by constant names and of their
    packages (each with its ``by_name`` unit: ``rts.deleted_modules``); the listing's unit
    when one of them is not loaded (not fetched yet: it could be any file then). Nothing
    for code whose fetches are not all constant: its names read the listing."""
    fetched = constant_fetches(code)
    if not fetched or python_rel(code.co_filename) is None:
        return ()
    units: list[Unit] = []
    for name in fetched:
        parts = name.split(".")
        for end in range(1, len(parts) + 1):
            module = sys.modules.get(".".join(parts[:end]))
            if module is None:
                return (LISTING,)
            filename = getattr(module, "__file__", None)
            rel = python_rel(filename) if isinstance(filename, str) else None
            if rel is not None:  # else a library's or a builtin module: no project code
                units += [Unit(rel, MODULE), Unit(NAMES, by_name(rel))]
    return tuple(units)
