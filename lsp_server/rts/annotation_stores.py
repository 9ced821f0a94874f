"""Whether a class or module body only stores its own annotations.

An annotated assignment in a class or module body (``name: str = "x"``, every field of a
dataclass) compiles to a store into the body's own annotations dict: ``LOAD_NAME
__annotations__``, ``LOAD_CONST 'name'``, ``STORE_SUBSCR`` (Python 3.10-3.13; 3.14 stores
an ``__annotate__`` function instead). That load finds the dict ``SETUP_ANNOTATIONS`` put
in the namespace being built: it reads no class's annotations, so it is no lookup of any
attribute (``lookups.ANNOTATION_READS``). structlog's ``@dataclass class Stack``, run at
import by every test, otherwise tied every test to every class of its modules.
"""

from __future__ import annotations

import dis
from types import CodeType

_ANNOTATIONS = "__annotations__"


def stores_annotations_only(code: CodeType) -> bool:
    """Whether every instruction of ``code`` naming ``__annotations__`` (a load, a store,
    a string constant) is the load that starts the store of one annotation."""
    ops = list(dis.get_instructions(code))
    found = False
    for at, ins in enumerate(ops):
        if ins.argval != _ANNOTATIONS:
            continue
        if not (ins.opname == "LOAD_NAME" and _stores_one(ops[at + 1 : at + 3])):
            return False
        found = True
    return found


def _stores_one(following: list[dis.Instruction]) -> bool:
    """``LOAD_CONST 'name'`` then ``STORE_SUBSCR``: ``__annotations__['name'] = ...``."""
    return (
        len(following) == 2
        and following[0].opname == "LOAD_CONST"
        and isinstance(following[0].argval, str)
        and following[1].opname == "STORE_SUBSCR"
    )
