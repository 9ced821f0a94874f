"""The lookup call sites of a code object, found in its bytecode (``lookup_sites``): where
a lookup function (``LOOKUP_FUNCTIONS``) or an attribute-lookup method is called with its
name argument pushed by one plain load, so that ``rts.runtime_lookups`` can read the name
as the call runs. See there for which shapes are told and which stay conservative."""

from __future__ import annotations

import builtins
import dis
import importlib
import operator
import sys
from collections.abc import Callable, Iterable, Mapping, Set
from types import CodeType

from lsp_server.rts import member_lookups
from lsp_server.rts.assert_callees import assert_temporary, temporary_sites
from lsp_server.rts.identity import identity
from lsp_server.rts.kept_code_analyses import kept_by_content
from lsp_server.rts.lookups import DYNAMIC_NAMES
from lsp_server.rts.named_reads import JUMPS, constant_module, handed_over, reads_one_name
from lsp_server.rts.namespace_updates import writes_only
from lsp_server.rts.site_values import Source, argument_sources
from lsp_server.rts.unpacked_formats import code_formats_unpacked

_NAME_ARGUMENTS: list[tuple[Callable[..., object], slice, str | None]] = [
    (getattr, slice(1, 2), None),
    (hasattr, slice(1, 2), None),
    (setattr, slice(1, 2), None),
    (delattr, slice(1, 2), None),
    (importlib.import_module, slice(0, 1), "importlib"),
    # Imports the module by name, then looks up the names of its fromlist: ``import_calls``.
    (builtins.__import__, slice(0, 1), None),
    # Reads every name of what it is given: bindings only of a module or a class.
    (vars, slice(0, 1), None),
    (dir, slice(0, 1), None),  # lists names: ``rts.namespace_listings``
]
if sys.version_info >= (3, 12):
    # Classes: only the CALL event sees them called. The names are fixed at the getter's making.
    _NAME_ARGUMENTS += [
        (operator.attrgetter, slice(0, None), "operator"),
        (operator.methodcaller, slice(0, 1), "operator"),
    ]

_NAME_ARGUMENTS += [(f, slice(0, 1), "inspect") for f in member_lookups.MEMBER_FUNCTIONS]
LOOKUP_FUNCTIONS: dict[int, tuple[Callable[..., object], slice]] = {
    identity(function): (function, arguments) for function, arguments, _ in _NAME_ARGUMENTS
}
"""A lookup function's id (a callable need not be hashable) -> the function, and which of
its positional arguments hold the names it looks up (a dotted name reads each part)."""
IMPORT_MODULE_CODE = importlib.import_module.__code__  # a profile hook sees a Python call
_LOOKUP_NAMES = frozenset(f.__name__ for f, _, _ in _NAME_ARGUMENTS)
_LOOKUP_METHODS = frozenset(["__getattr__", "__getattribute__"])
"""Attribute-lookup methods whose calls, spelled as attributes, are lookup call sites: the
strings among their arguments are the names they read."""
_HOME = {f.__name__: home for f, _, home in _NAME_ARGUMENTS if home is not None}
"""The module a lookup function not among the builtins is imported from."""
# Before 3.12 the tracer sees only the calls of builtins and Python functions, not which
# callable a call site called: only a callee loaded by its global name, which the module
# binds to nothing (``shadowed``), is known to be the lookup function. On 3.12+ the CALL
# event names the callable: any callee spelled like one is fine.
_CALLEE_OPS = frozenset(
    ["LOAD_GLOBAL", "LOAD_NAME", "LOAD_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR"]
    if sys.version_info >= (3, 12)
    else ["LOAD_GLOBAL", "LOAD_NAME"]
)
_METHOD_OPS = frozenset(["LOAD_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR"])
_CALL_OPS = frozenset(["CALL", "CALL_FUNCTION", "CALL_METHOD"])


Sites = dict[int, tuple[Source | None, ...]]
"""A call's offset -> the source of each of its arguments (None: computed); a call of a
lookup method (``_LOOKUP_METHODS``) has ``METHOD_CALL`` first."""

METHOD_CALL: Source = ("method", None)


def call_site(
    instructions: list[dis.Instruction], callee: int, keywords: bool = False
) -> tuple[int, Sites] | None:
    """The call whose callee the instruction at ``callee`` loads: its offset and the
    sources of its last arguments that are plain loads (the name argument must be one).
    The call is the first whose arguments are all that was pushed since the callee (an
    inner call's own callee is still on the stack at its call); a jump on the way (a
    conditional argument) leaves it unknown. ``keywords``: 3.12's ``KW_NAMES`` passed over."""
    depth = 0
    for index in range(callee + 1, len(instructions)):
        ins = instructions[index]
        if ins.is_jump_target or ins.opcode in JUMPS:
            return None
        # 3.11 calls are PRECALL n (pops the arguments), CALL n: the PRECALL tells.
        precall = instructions[index - 1].opname == "PRECALL"
        if ins.opname == "PRECALL" or (ins.opname in _CALL_OPS and not precall):
            if depth == ins.arg:
                at = index + 1 if ins.opname == "PRECALL" else index
                call = instructions[at]
                after = (
                    instructions[at + 1].offset if at + 1 < len(instructions) else call.offset + 2
                )
                arguments = argument_sources(instructions, index, depth)
                # 3.11 reports a Python callee's caller at the call's last cache entry.
                return call.offset, dict.fromkeys(range(call.offset, after, 2), arguments)
        elif ins.opname == "KW_NAMES" and keywords:
            continue
        elif ins.opname in ("KW_NAMES", "CALL_FUNCTION_KW", "CALL_FUNCTION_EX"):
            return None  # keywords: the positions are not the signature's
        depth += dis.stack_effect(ins.opcode, ins.arg, jump=False)
        if depth < 0:
            return None  # the callee was consumed by something else
    return None


def lookup_sites(code: CodeType) -> Sites | None:
    """The lookup call sites of ``code`` (see the module docstring); None when ``code``
    may look names up in a way no call site tells (it stays conservative)."""
    # Reading ``__all__`` reads a name: what it lists, only a lookup of its own looks up.
    spelled = DYNAMIC_NAMES.intersection(code.co_names) - {"__all__"}
    if code_formats_unpacked(code):
        return None  # the fields of a template handed a mapping: no call site tells them
    if not spelled:
        return {}
    if not spelled <= _LOOKUP_NAMES | _LOOKUP_METHODS | {"__dict__", "modules"}:
        return None
    return _spelled_sites_of(code)


@kept_by_content
def _spelled_sites_of(code: CodeType) -> Sites | None:
    """``_spelled_sites`` of ``code``, kept across sessions (``rts.kept_code_analyses``)."""
    return _spelled_sites(code, DYNAMIC_NAMES.intersection(code.co_names) - {"__all__"})


def _spelled_sites(code: CodeType, spelled: Set[str]) -> Sites | None:
    """``lookup_sites`` of ``code``, which spells the lookups ``spelled``."""
    instructions = list(dis.get_instructions(code))
    sites: Sites = {}
    for index, ins in enumerate(instructions):
        if reads_one_name(instructions, index) or constant_module(instructions, index):
            continue  # ``obj.__dict__["name"]``, ``sys.modules[key].attr``, ``["name"]``
        if writes_only(instructions, index):
            continue  # ``obj.__dict__.update(state)``: ``rts.namespace_updates``
        if handed_over(instructions, index):
            return None  # iterated by a generator, passed to a call: any name listed
        method = ins.argval in _LOOKUP_METHODS and ins.opname in _METHOD_OPS
        if ins.argval in spelled and (ins.opname in _CALLEE_OPS or method):
            members = ins.argval in member_lookups.MEMBER_NAMES
            local = None if members or method else assert_temporary(instructions, index)
            if local is not None:  # kept by pytest's rewritten assert: its calls
                in_assert = temporary_sites(instructions, local, call_site)
                if in_assert is None:
                    return None
                sites.update(in_assert)
                continue
            found = call_site(instructions, index, keywords=members)
            if found is None:
                return None
            if members:
                found = found[0], dict.fromkeys(found[1], (member_lookups.MEMBERS_CALL,))
            if ins.argval in _LOOKUP_METHODS:
                if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                    return None  # a function of that name, not the method
                found = found[0], {o: (METHOD_CALL, *a) for o, a in found[1].items()}
            sites.update(found[1])
        elif ins.argval in spelled and ins.opcode in dis.hasname:
            return None  # stored, deleted, or loaded for anything but a call
    return sites


def shadowed(
    code: CodeType, bound: Mapping[str, Iterable[str]], origins: Mapping[str, str]
) -> bool:
    """Whether a lookup function ``code`` spells may be something else: its module binds
    the name (``bound``: name -> its binding units) other than by importing it from its own
    module (``import_module`` from ``importlib``; ``origins``: ``lookups.import_origins``).
    A class attribute so named (jinja's ``Environment.getattr`` method) is no global: a
    function's ``getattr`` still finds the builtin."""
    for name in _LOOKUP_NAMES.intersection(code.co_names):
        globals_ = [unit for unit in bound.get(name, ()) if not _is_member(unit, name)]
        home = _HOME.get(name)
        if home is not None and origins.get(name) == home:
            if len(globals_) > 1:
                return True
        elif globals_ or name in origins:
            return True
    return False


def _is_member(unit: str, name: str) -> bool:
    """Whether the binding unit ``unit`` of ``name`` binds a class's attribute: its name is
    qualified by a class (``C.name``, ``C.name.<def>``), not the name itself or a special
    unit (``<import>.name``)."""
    first = unit.partition(".")[0]
    return first != name and not first.startswith("<")
