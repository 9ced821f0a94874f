"""Which module code or class body that ran with a class hook may have handed it a class.

Where a class hook ran at a module's import (a metaclass, ``__init_subclass__``), the files
whose module code and class bodies ran with it were read whole (``rts.import_footprints``):
the hook may read every attribute of a class it is handed, or register it. But the import
of jmespath's package runs every module inside it, one of which defines a class with a
project metaclass: every file of the package was read whole, and a new ``__version__``
selected every test.

A hook is handed the classes made while it is in force: by a class statement (its body is
the code that ran, judged on its own) or by a call that makes one (``type(...)``, a
library's class factory). So module code or a class body that calls nothing but the
building of its class statements and the plain decorators (``classmethod``,
``staticmethod``, ``property``) hands a hook no class of its own; nor does the body of a
top-level class that ``type`` made alone (``class_hooks.made_without_hooks``): no hook saw
its namespace (``class_hooks.HookedClasses.may_hand_classes``). Such code is not read
whole. Any other call (a decorator, a base computed by a call, a factory) keeps the file
whole.
"""

from __future__ import annotations

import dis
import sys
from bisect import bisect_right
from types import CodeType

from lsp_server.rts.wrapping_builtins import KEEPING_BUILTINS

_CALLS = frozenset(
    ["CALL", "CALL_FUNCTION", "CALL_METHOD", "CALL_FUNCTION_KW", "CALL_FUNCTION_EX", "CALL_KW"]
)
# What may stand between a plain decorator's name and its call: the function being made
# (its defaults, annotations and closure read, nothing called).
_MAKING_A_FUNCTION = frozenset(
    [
        "LOAD_CONST",
        "LOAD_NAME",
        "LOAD_GLOBAL",
        "LOAD_FAST",
        "LOAD_DEREF",
        "LOAD_CLOSURE",
        "BUILD_TUPLE",
        "BUILD_MAP",
        "BUILD_CONST_KEY_MAP",
        "MAKE_FUNCTION",
        "SET_FUNCTION_ATTRIBUTE",
        "PRECALL",
        "EXTENDED_ARG",
        "NOP",
        "CACHE",
    ]
)
DECORATOR_ARGUMENTS = 0 if sys.version_info >= (3, 11) else 1
"""The argument count of a decorator's call on the function: 3.11+ ``CALL 0`` (the function
in the ``self`` slot), ``CALL_FUNCTION 1`` before."""


def calls_only_class_statements(code: CodeType) -> bool:
    """Whether every call ``code`` makes builds a class statement's class or applies a
    plain decorator (bound to nothing else in ``code``) to the function made just before."""
    instructions = list(dis.get_instructions(code))
    calls = [at for at, ins in enumerate(instructions) if ins.opname in _CALLS]
    harmless: set[int] = set()
    for at, ins in enumerate(instructions):
        if ins.opname in ("STORE_NAME", "STORE_GLOBAL") and ins.argval in KEEPING_BUILTINS:
            return False  # a plain decorator's name bound to something else
        # The first call after ``at``: found by bisection, as a scan of ``calls`` at every
        # instruction made a module's top level quadratic in its size.
        next_call = bisect_right(calls, at)
        if next_call == len(calls):
            break
        following = calls[next_call]
        if ins.opname == "LOAD_BUILD_CLASS":
            # Its call, unless its bases call first: then that one, and its own stays.
            harmless.add(following)
        elif ins.opname in ("LOAD_NAME", "LOAD_GLOBAL") and ins.argval in KEEPING_BUILTINS:
            between = [i.opname for i in instructions[at + 1 : following]]
            applied = instructions[following].arg == DECORATOR_ARGUMENTS
            if applied and "MAKE_FUNCTION" in between and set(between) <= _MAKING_A_FUNCTION:
                harmless.add(following)
    return all(at in harmless for at in calls)
