"""``frame_namespaces._looks_up_by_string`` decides whether code made from a string reads
any name. It reads the bytecode itself (``reads.instruction_arguments``) and passes over
code spelling none of the names it looks for: it must answer as ``dis`` does, on real
modules' code and on code spelling those names every way (as a global, an attribute, a
method, a local)."""

from __future__ import annotations

import argparse
import dis
import inspect
import json.decoder
import typing
from collections.abc import Iterator
from types import CodeType

from lsp_server.rts import frame_namespaces
from lsp_server.rts.frame_namespaces import _looks_up_by_string
from lsp_server.rts.lookups import DYNAMIC_NAMES, FRAME_NAMESPACES

_SPELLED = [
    "x = getattr(obj, name)",
    "x = env.getattr(obj, name)",  # a method so named: no lookup
    "x = obj.__dict__",
    "x = obj.__globals__",
    "x = sys.modules",
    "x = frame.f_locals",
    "x = globals()",
    "x = vars(obj)",
    "getattr = 1\nx = getattr",  # a local of a function: LOAD_FAST
    "x = obj.getattr.__name__",
    "x = obj.dict",
    "from os import path as getattr",
]


def _with_dis(code: CodeType) -> bool:
    """The answer as ``dis`` gives it, instruction by instruction."""
    global_loads = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS")
    namespaces = {"__dict__", "__globals__", "modules", *FRAME_NAMESPACES}
    for instruction in dis.get_instructions(code):
        if instruction.opname in global_loads and instruction.argval in DYNAMIC_NAMES:
            return True
        if instruction.opname == "LOAD_ATTR" and instruction.argval in namespaces:
            return True
    return False


def _codes(code: CodeType) -> Iterator[CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _codes(const)


def _made_from_strings() -> list[CodeType]:
    codes = []
    for statement in _SPELLED:
        codes.append(compile(statement, "<template>", "exec"))
        body = "".join(f"    {line}\n" for line in statement.splitlines())
        codes.extend(_codes(compile(f"def f(obj, name):\n{body}", "<template>", "exec")))
    return codes


def test_the_answer_is_dis_s_on_real_code_and_on_every_spelling() -> None:
    modules = [typing, inspect, json.decoder, argparse, frame_namespaces]
    codes = [c for m in modules for c in _codes(compile(inspect.getsource(m), "m.py", "exec"))]
    codes += _made_from_strings()
    answers = [_looks_up_by_string(code) for code in codes]
    assert answers == [_with_dis(code) for code in codes]
    assert True in answers and False in answers  # both kinds were asked
