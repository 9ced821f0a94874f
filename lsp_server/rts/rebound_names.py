"""What a test's code names, for the rebound-names rule of ``rts.filled_containers``: the
names it reads or spells, the names it imports itself, and which rebinding is only the
import system binding a submodule on its package."""

from __future__ import annotations

import dis
import inspect
import sys
from collections.abc import Iterable
from types import CodeType, ModuleType

# Instructions reading a name (a global, an attribute, a name imported from a module).
_NAME_LOADS = frozenset(
    {
        "LOAD_GLOBAL",
        "LOAD_NAME",
        "LOAD_ATTR",
        "LOAD_METHOD",
        "LOAD_SUPER_ATTR",
        "LOAD_FROM_DICT_OR_GLOBALS",
        "LOAD_CLASSDEREF",
        "IMPORT_FROM",
    }
)


def bound_by_import(owner: object, name: str, value: object) -> bool:
    """Whether ``value`` is the submodule the import system bound as ``name`` on the
    package ``owner`` when a test first imported it."""
    package = getattr(owner, "__name__", None)
    return isinstance(value, ModuleType) and sys.modules.get(f"{package}.{name}") is value


def imported_names(code: CodeType) -> frozenset[str]:
    """The names ``code`` imports itself (``from pkg import api``, ``import pkg.api``): a
    package's submodule read so is imported by the reading test whatever ran before it."""
    found: set[str] = set()
    for instruction in dis.get_instructions(code):
        if instruction.opname == "IMPORT_FROM":
            found.add(instruction.argval)
        elif instruction.opname == "IMPORT_NAME":
            found.update(str(instruction.argval).split(".")[1:])
    return frozenset(found)


def names_spelled(code: CodeType) -> frozenset[str]:
    """The names ``code`` reads and its string constants (``getattr(obj, "mode")``). A
    module's or class body's ``def mode`` binds ``mode``, reads nothing: their instructions
    tell (a function's ``co_names`` are nearly all reads, and far cheaper to take)."""
    if code.co_flags & inspect.CO_NEWLOCALS:
        names: Iterable[str] = code.co_names
    else:
        names = (i.argval for i in dis.get_instructions(code) if i.opname in _NAME_LOADS)
    return frozenset({*names, *(c for c in code.co_consts if type(c) is str)})
