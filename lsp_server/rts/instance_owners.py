"""Whose ``__dict__`` a watched line reads, told as the line runs (``rts.read_lines``).

The ``__dict__`` of an instance whose class, and every class of its MRO, is defined outside
the project (a ``logging.LogRecord``: structlog's ``ProcessorFormatter.format`` copies one
by ``logging.makeLogRecord(record.__dict__)``) holds that object's attributes: the library
sets them, or project code does where it runs (its units are the test's) or at import (a
statement of a module the test imports). No global or member of a project module is among
them, so keying or listing it is no lookup of any project name. A module, a class (its
namespace), a function (its attributes) or an instance of a project class may hold any:
those still read every name.

The owner is told at the line's LINE event, before any instruction of the line runs: only
a plain local (``LOAD_FAST``) loaded for ``__dict__`` with nothing on the line before it that
could rebind the local (a store or delete of it) or enter the line past the event (a jump
or exception target). A line with any other ``__dict__`` or frame-namespace read stays whole.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable, Iterable, Mapping
from types import CodeType, FrameType, FunctionType, MethodType, ModuleType

from lsp_server.rts.named_reads import JUMPS
from lsp_server.rts.plain_values import may_be, own_namespace

_OWNER_LOADS = frozenset(["LOAD_FAST", "LOAD_FAST_CHECK"])
_REBINDS = frozenset(["STORE_FAST", "DELETE_FAST", "STORE_FAST_STORE_FAST", "STORE_FAST_LOAD_FAST"])
# Objects whose ``__dict__`` is a namespace of the project's code, whatever their class.
_NAMESPACES = (ModuleType, type, FunctionType, MethodType)


_DICT = frozenset(["__dict__"])


def owner_lines(
    code: CodeType,
    line_at: Mapping[int, int | None],
    namespaces: frozenset[str],
    told: frozenset[str] = _DICT,
) -> dict[int, frozenset[str]]:
    """The lines of ``code`` whose every read of one of ``namespaces`` is one of ``told``
    (a ``__dict__``; a frame's ``f_globals``: ``rts.frame_namespaces``) of a local told at
    the line's event, with those locals."""
    instructions = list(dis.get_instructions(code))
    # Where execution may enter an instruction without a LINE event of its line: exception
    # handlers, and jumps from the same line (a jump from another line fires one).
    entries = getattr(dis.Bytecode(code), "exception_entries", None)  # untyped in typeshed
    if entries is None:
        return {}
    targets: set[int] = {entry.target for entry in entries}
    targets.update(
        ins.argval
        for ins in instructions
        if ins.opcode in JUMPS and line_at.get(ins.argval) == line_at.get(ins.offset)
    )
    owners: dict[int, set[str]] = {}
    untold: set[int] = set()
    for index, ins in enumerate(instructions):
        if ins.opcode not in dis.hasname or ins.argval not in namespaces:
            continue
        line = line_at.get(ins.offset)
        owner = _told_owner(instructions, index, line_at, targets, told)
        if line is None or owner is None:
            untold.add(-1 if line is None else line)
        else:
            owners.setdefault(line, set()).add(owner)
    return {line: frozenset(names) for line, names in owners.items() if line not in untold}


def _told_owner(
    instructions: list[dis.Instruction],
    index: int,
    line_at: Mapping[int, int | None],
    targets: set[int],
    told: frozenset[str],
) -> str | None:
    """The local whose namespace (an attribute of ``told``) the instruction at ``index``
    loads, when its value at the line's event is the one loaded; else None."""
    ins = instructions[index]
    if ins.opname != "LOAD_ATTR" or ins.argval not in told or index == 0:
        return None
    owner = instructions[index - 1]
    if owner.opname not in _OWNER_LOADS:
        return None
    line = line_at.get(ins.offset)
    at = index - 1
    while at > 0 and line_at.get(instructions[at - 1].offset) == line:
        at -= 1
    # From the line's first instruction (where its event fires) to the load.
    for before in instructions[at:index]:
        inner = before.is_jump_target and before is not instructions[at]
        if inner or before.offset in targets:
            return None
        if before.opname in _REBINDS and owner.argval in _names(before.argval):
            return None
    return str(owner.argval)


def _names(argval: object) -> Iterable[object]:
    return argval if isinstance(argval, tuple) else (argval,)


def library_instances(
    frame: FrameType, names: Iterable[str], is_project_file: Callable[[str], bool]
) -> bool:
    """Whether every local of ``names`` in ``frame`` holds an instance whose classes all
    come from outside the project (a class whose module is unknown may be the project's)."""
    values = frame.f_locals
    for name in names:
        if name not in values or may_be(values[name], _NAMESPACES):
            return False
        # A module's globals given to an instance (``obj.__dict__ = vars(module)``).
        if "__builtins__" in (own_namespace(values[name]) or ()):
            return False
        for cls in type(values[name]).__mro__:
            home = getattr(cls, "__module__", None)
            module = sys.modules.get(home) if isinstance(home, str) else None
            filename = getattr(module, "__file__", None)
            if module is None or not isinstance(filename, str):
                if home not in sys.builtin_module_names:
                    return False
            elif is_project_file(filename):
                return False
    return True


def no_namespaces(frame: FrameType, names: Iterable[str]) -> bool:
    """Whether no local of ``names`` in ``frame`` holds a module, a function or a method, or
    an object whose ``__dict__`` holds a module's globals: its ``__dict__`` is an instance's
    attributes or a class's members (``lookups.ATTRIBUTE_LOOKUP`` reads), never a module's
    names. A method's ``self`` may be a module all the same (``Cls.names(module)``)."""
    values = frame.f_locals
    for name in names:
        if name not in values:
            return False
        if holds_namespace(values[name]):
            return False
    return True


def holds_namespace(value: object) -> bool:
    """Whether ``value``'s attributes may be a namespace of the project's code: a module,
    a function or a method (or anything passing for one), or an object whose ``__dict__``
    holds a module's globals (``obj.__dict__ = vars(module)``). Any other object's are its
    own attributes and its classes' members."""
    if may_be(value, (ModuleType, FunctionType, MethodType)):
        return True
    return "__builtins__" in (own_namespace(value) or ())
