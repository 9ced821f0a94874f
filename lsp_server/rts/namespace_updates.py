"""``obj.__dict__.update(mapping)``: names written into a namespace, none read from it.

A code object spelling ``__dict__`` in a shape no call site tells stays conservative as a
whole (``rts.lookup_sites``): any name of its modules is read and, when it also fetches a
module by name (``import_module(modname)``), the session listing (``rts.module_fetches``),
which any change anywhere selects. toolz's ``_restore_curry`` (run by every test that
unpickles a curried function) fills a new object's namespace so, next to an
``import_module(modname)`` and a ``getattr(obj, attr)`` whose names a call site tells:
six tests reran on every commit of toolz's history, a comment change included.

Calling the namespace's ``update`` with one positional argument, its result dropped, reads
no name of the namespace (it iterates the argument, whose own code is traced as any code
is) and hands the namespace to nothing: it writes. A later read of a written name is
spelled where it happens and counted there. So the shape is no lookup: the code's other
lookup sites keep being recorded as they run. Any other use of the namespace (iterated,
copied, handed to a call, ``update`` called with keywords or its result kept) stays a
lookup by string.
"""

from __future__ import annotations

import dis
import sys

from lsp_server.rts.named_reads import JUMPS

_ARGUMENT_LOADS = frozenset(
    ["LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_CONST"]
)
_CALLS = frozenset(["CALL", "CALL_METHOD"])


def writes_only(instructions: list[dis.Instruction], index: int) -> bool:
    """Whether the instruction at ``index`` loads ``__dict__`` only to call its ``update``
    with one plain-loaded argument and drop the result (3.10's ``CALL_METHOD``, 3.11's
    ``PRECALL`` before ``CALL``, 3.12's ``CALL``)."""
    ins = instructions[index]
    if ins.opname != "LOAD_ATTR" or ins.argval != "__dict__":
        return False
    following = instructions[index + 1 : index + 6]
    if any(i.is_jump_target or i.opcode in JUMPS for i in following):
        return False
    if following and not _loads_method(following[0]):
        return False
    shape = [i.opname for i in following if i.opname != "PRECALL"]
    if len(shape) < 4 or following[0].argval != "update":
        return False
    if shape[1] not in _ARGUMENT_LOADS or shape[2] not in _CALLS or shape[3] != "POP_TOP":
        return False
    call = next(i for i in following if i.opname in _CALLS)
    return call.arg == 1


def _loads_method(ins: dis.Instruction) -> bool:
    """Whether ``ins`` loads a method to call: ``LOAD_METHOD`` before 3.12, a ``LOAD_ATTR``
    with its low bit set from 3.12 on."""
    if ins.opname == "LOAD_METHOD":
        return True
    return ins.opname == "LOAD_ATTR" and sys.version_info >= (3, 12) and (ins.arg or 0) & 1 == 1
