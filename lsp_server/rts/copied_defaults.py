"""Default values a decorator copies onto a wrapper that ignores them.

tenacity's ``Retrying.wraps`` decorates ``def wrapped_f(*args, **kw)`` with
``functools.wraps(f, functools.WRAPPER_ASSIGNMENTS + ("__defaults__", "__kwdefaults__"))``:
``functools.update_wrapper`` reads ``f.__defaults__`` and sets it on ``wrapped_f``. Spelled
so, ``__defaults__`` made every test that decorated a function a signature reader
(``lookups.SIGNATURE_READS``), which sees the default values of every function whose header
it depends on (``rts.seen_bodies``): tenacity ae2d75e changed one annotation and 153 tests
ran against testmon's 92.

A function whose code takes no parameter but ``*args`` and ``**kwargs`` ignores the values
of its ``__defaults__`` and ``__kwdefaults__``: a call binds none of them. The copied
values show only to code that reads them off the wrapper later (it spells the read itself)
and to a call of the wrapped function (which runs its body, whose unit holds them). So a
spelling counts as no read when it is the constant ``assigned`` argument of
``functools.wraps`` (alone, or added to ``functools.WRAPPER_ASSIGNMENTS``), called with two
positional arguments and applied straight to a ``def`` of such a function: the only
decorator below it, told by the stack between the call and the decorating call.
"""

from __future__ import annotations

import dis
from types import CodeType

from lsp_server.rts.hook_exposure import DECORATOR_ARGUMENTS

__all__ = ["DEFAULTS_READS", "copies_defaults_only"]

DEFAULTS_READS = frozenset(["__defaults__", "__kwdefaults__"])

_SKIPPED = frozenset(["PRECALL", "CACHE", "EXTENDED_ARG", "NOP"])
_CALLS = frozenset(["CALL", "CALL_FUNCTION", "CALL_METHOD"])
_ADDS = frozenset(["BINARY_OP", "BINARY_ADD"])
_WRAPPED_LOADS = frozenset(["LOAD_FAST", "LOAD_DEREF", "LOAD_GLOBAL", "LOAD_NAME"])
_MODULE_LOADS = frozenset(["LOAD_GLOBAL", "LOAD_NAME"])
_ATTRIBUTE_LOADS = frozenset(["LOAD_ATTR", "LOAD_METHOD"])
# What may stand between the ``wraps(...)`` call and ``MAKE_FUNCTION``: the operands of the
# ``def`` (annotations, closure cells), and never a call.
_OPERAND_OPS = frozenset(
    [
        "LOAD_CONST",
        "LOAD_GLOBAL",
        "LOAD_NAME",
        "LOAD_ATTR",
        "LOAD_FAST",
        "LOAD_DEREF",
        "LOAD_CLOSURE",
        "BUILD_TUPLE",
        "BUILD_MAP",
        "BUILD_CONST_KEY_MAP",
        "BINARY_SUBSCR",
        "BINARY_OP",
    ]
)


def copies_defaults_only(code: CodeType) -> bool:
    """Whether ``code`` spells ``DEFAULTS_READS``, each time in the ``assigned`` argument of
    a ``functools.wraps`` that decorates a function taking only ``*args`` and ``**kwargs``
    (see the module docstring)."""
    ops = [ins for ins in dis.get_instructions(code) if ins.opname not in _SKIPPED]
    found = False
    for at, ins in enumerate(ops):
        if not _spells_defaults(ins):
            continue
        if not _assigned_to_bare_wrapper(ops, at):
            return False
        found = True
    return found


def _spells_defaults(ins: dis.Instruction) -> bool:
    if ins.opcode in dis.hasname:
        return ins.argval in DEFAULTS_READS
    if ins.opcode not in dis.hasconst:
        return False
    value = ins.argval
    texts = value if isinstance(value, (tuple, frozenset)) else (value,)
    return any(
        isinstance(text, str) and not DEFAULTS_READS.isdisjoint(text.replace(":", ".").split("."))
        for text in texts
    )


def _assigned_to_bare_wrapper(ops: list[dis.Instruction], at: int) -> bool:
    """Whether ``ops[at]`` (spelling a defaults read) loads the constant tuple ``assigned``
    of ``functools.wraps(wrapped, assigned)`` applied to a function that takes only
    ``*args`` and ``**kwargs``."""
    if ops[at].opname != "LOAD_CONST" or not isinstance(ops[at].argval, tuple):
        return False
    start, call = at, at + 1
    if _added_to_assignments(ops, at):
        start, call = at - 2, at + 2
    if start < 3 or call >= len(ops):
        return False
    module, attribute, wrapped = ops[start - 3 : start]
    if not (
        module.opname in _MODULE_LOADS
        and module.argval == "functools"
        and attribute.opname in _ATTRIBUTE_LOADS
        and attribute.argval == "wraps"
        and wrapped.opname in _WRAPPED_LOADS
        and ops[call].opname in _CALLS
        and ops[call].arg == 2
    ):
        return False
    made = _made_function(ops, call + 1)
    return made is not None and _takes_no_parameter(made)


def _added_to_assignments(ops: list[dis.Instruction], at: int) -> bool:
    """``functools.WRAPPER_ASSIGNMENTS + (...)``: the tuple at ``at`` added to it."""
    return (
        at >= 2
        and at + 1 < len(ops)
        and ops[at - 2].opname in _MODULE_LOADS
        and ops[at - 2].argval == "functools"
        and ops[at - 1].opname == "LOAD_ATTR"
        and ops[at - 1].argval == "WRAPPER_ASSIGNMENTS"
        and ops[at + 1].opname in _ADDS
        and ops[at + 1].argrepr in ("+", "")
        and (ops[at + 1].opname == "BINARY_ADD" or ops[at + 1].arg == 0)
    )


def _made_function(ops: list[dis.Instruction], start: int) -> CodeType | None:
    """The code of the function that ``ops[start:]`` makes and hands at once to the callable
    on the stack below (the ``wraps(...)`` result) as a decorator; None when anything else
    happens first (a call, another decorator loaded, an instruction not building the
    ``def``'s operands)."""
    depth = 0
    code: CodeType | None = None
    at = start
    while at < len(ops) and ops[at].opname != "MAKE_FUNCTION":
        ins = ops[at]
        if ins.opname not in _OPERAND_OPS:
            return None
        if isinstance(ins.argval, CodeType):
            code = ins.argval
        depth += dis.stack_effect(ins.opcode, ins.arg)
        if depth < 0:
            return None
        at += 1
    if at >= len(ops) or code is None:
        return None
    depth += dis.stack_effect(ops[at].opcode, ops[at].arg)
    at += 1
    while at < len(ops) and ops[at].opname == "SET_FUNCTION_ATTRIBUTE":  # 3.13
        depth += dis.stack_effect(ops[at].opcode, ops[at].arg)
        at += 1
    decorating = at < len(ops) and ops[at].opname in _CALLS and ops[at].arg == DECORATOR_ARGUMENTS
    return code if depth == 1 and decorating else None


def _takes_no_parameter(code: CodeType) -> bool:
    """Whether a call binds none of the function's ``__defaults__`` or ``__kwdefaults__``:
    it takes no parameter but ``*args`` and ``**kwargs``."""
    return code.co_argcount == 0 and code.co_posonlyargcount == 0 and code.co_kwonlyargcount == 0
