"""``template.format(**mapping)``: names looked up by the fields of a template.

``str.format`` (as ``format_map``) finds each field's first part among its keyword
arguments, then its attributes and items by the rest (``"{other.LIMIT}"`` reads ``LIMIT``
of the module ``other``). Handed a namespace whole (``template.format(**globals())``, a
library handed a module's globals), the fields look names up by string, in library code
(``str.format`` is not traced): where the template is not spelled in the code, any name
(``lookups.lookup_spellings``, ``lookup_sites.lookup_sites``), as ``format_map`` in
``lookups.DYNAMIC_NAMES``. A template spelled as a constant whose fields name no attribute
or item reads the mapping's keys alone, which the code that made the mapping reads.

``str.format`` with keywords spelled one by one (click's ``_("...{name}").format(name=x)``)
or positional arguments is not counted: each value is named by the code that passes it,
and a template made at run time reading an attribute of one of them is a hole left open
(README, Limits)"""

from __future__ import annotations

import ast
import dis
import string
from types import CodeType

SPELLING = "format"
"""The attribute a line spells when it may call ``str.format``."""


def formats_unpacked(call: ast.AST) -> bool:
    """Whether ``call`` is ``template.format(**mapping)`` with a template that may look
    up an attribute or an item of a value (see above)."""
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != SPELLING:
        return False
    if not any(keyword.arg is None for keyword in call.keywords):
        return False
    template = func.value
    if isinstance(template, ast.Constant) and isinstance(template.value, str):
        return _looks_deeper(template.value)
    return True


def code_formats_unpacked(code: CodeType) -> bool:
    """``formats_unpacked`` told from the bytecode of ``code`` (its own, not its nested
    code objects'): it loads an attribute ``format`` other than off a constant template of
    plain fields, and calls with a ``**`` mapping."""
    if SPELLING not in code.co_names:
        return False
    instructions = list(dis.get_instructions(code))
    unpacks = any(ins.opname == "CALL_FUNCTION_EX" and (ins.arg or 0) & 1 for ins in instructions)
    if not unpacks:
        return False
    for at, ins in enumerate(instructions):
        if ins.argval != SPELLING or ins.opname not in ("LOAD_ATTR", "LOAD_METHOD"):
            continue
        template = instructions[at - 1].argval if at else None
        if instructions[at - 1].opname != "LOAD_CONST" or not isinstance(template, str):
            return True
        if _looks_deeper(template):
            return True
    return False


def _looks_deeper(template: str) -> bool:
    """Whether a field of ``template`` names an attribute or an item of its value (or the
    template does not parse: ``format`` would raise, or read what it reads)."""
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(template) if field]
    except ValueError:
        return True
    return any("." in field or "[" in field for field in fields)
