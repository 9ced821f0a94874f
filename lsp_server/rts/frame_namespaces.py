"""Whose namespace a frame read finds, told as its line runs (``rts.read_lines``, 3.12+).

typeguard's ``check_type`` does ``frame = sys._getframe(1)`` and hands ``frame.f_globals``
and ``frame.f_locals`` to its checks, which evaluate forward references there: any name may
be looked up, so every test calling it depended on every unit of every module it imports
(173 of 178 such tests of its ``test_checkers.py``), and any new binding anywhere, a test
added to another file included, selected them.

When a plain local holds the frame (``instance_owners.owner_lines``: its value at the line's
LINE event is the one read), the event looks at it. Its globals are the namespace of a
project module ``M`` (the module found by ``__name__`` in ``sys.modules`` holds that very
dict, and the frame runs code of ``M``'s file), and its locals are either a function's own
variables (fast locals: the names its code binds, values made by code that ran) or that same
namespace (a module's frame). A lookup there finds a binding of ``M`` or a name stored into
it from elsewhere: the code reads ``M`` whole, as ``globals()`` does (``own_globals``: every
unit of ``M`` but the bodies, and a new name bound there selects it). A frame of a project
class body, or whose globals are no module's namespace (``exec`` in a dict) is not told: it still
reads any name. A library's frame (typeguard's tests call ``pytest.raises(TypeCheckError,
check_type, value, hint)``: the caller is pytest's ``raises``) reads no project binding: its
module's names and its function's locals are the library's, bound by the library or by
project code where that ran (its units are the test's) or at import (a statement of a module
the test imports), as for a library instance's ``__dict__`` (``rts.instance_owners``).

What is found there is then read by the names code spells, as any value: names of code made
from a string (``eval``, ``exec``, ``ForwardRef._evaluate``: ``List["other.Foo"]`` finds
``other`` there and ``Foo`` on it) count as read by the test that ran it
(``evaluated_code_key``, from the ``exec`` audit event); one calling a lookup by string
(``getattr(x, n)``) or reading a namespace (``x.__dict__``) reads any name, not one calling
a method so named (jinja's template code calls ``environment.getattr``). A library that
looks up names taken from data without such code (``str.format_map`` on the namespace) is
not seen, as anywhere else.

The told modules and evaluated names reach the attribution as keys among the window's read
lines, past the range of code identities and their ``read_lines.frame_key`` and
``instance_key``.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable, Iterable, Set
from inspect import CO_OPTIMIZED
from types import CodeType, FrameType

from lsp_server.rts.lookups import DYNAMIC_NAMES, FRAME_NAMESPACES
from lsp_server.rts.own_globals import own_globals_read
from lsp_server.rts.reads import EVERY_NAME, code_reads, instruction_arguments

TOLD_FRAME_READS = frozenset(["f_globals", "f_locals"])
"""The frame attributes whose owner a LINE event tells (``f_builtins`` stays whole)."""

_FIRST_KEY = 1 << 66
# By key - _FIRST_KEY: the module file read whole, or (None) the names read.
_told: list[tuple[str | None, frozenset[str]]] = []
_keys: dict[tuple[str | None, frozenset[str]], int] = {}
# Code made from a string -> its key. By value: equal code spells the same names, and the
# same forward reference is evaluated again and again (a code object made each time).
_evaluated: dict[CodeType, int] = {}


def _key(told: tuple[str | None, frozenset[str]]) -> int:
    key = _keys.get(told)
    if key is None:
        key = _keys[told] = _FIRST_KEY + len(_told)
        _told.append(told)
    return key


def names_key(names: frozenset[str]) -> int:
    """The key under which ``names`` count as read by the test running
    (``ReadLineWatch.ran``): what a library showed it (``rts.logged_lines``)."""
    return _key((None, names))


def frame_module_keys(
    frame: FrameType, names: Iterable[str], is_project_file: Callable[[str], bool]
) -> list[int] | None:
    """The keys of the project modules whose namespaces the frames held by the locals
    ``names`` of ``frame`` are (a library's adds none); None when one is not told (no frame,
    no module's namespace, a project class body's locals)."""
    values = frame.f_locals
    keys = []
    for name in names:
        held = values.get(name)
        if type(held) is not FrameType:
            return None
        namespace = held.f_globals
        filename = _module_file(namespace)
        # Code of another file run in that namespace (``exec(source, vars(module))``) is
        # not told: its own names may be any module's.
        if filename is None or filename != held.f_code.co_filename:
            return None
        if not is_project_file(filename):
            continue  # ``pytest.raises(E, check_type, ...)``: the caller is pytest's
        if not held.f_code.co_flags & CO_OPTIMIZED and held.f_locals is not namespace:
            return None
        keys.append(_key((filename, frozenset())))
    return keys


def _module_file(namespace: dict[str, object]) -> str | None:
    """The file of the module whose namespace ``namespace`` is, if one is loaded."""
    name = namespace.get("__name__")
    module = sys.modules.get(name) if isinstance(name, str) else None
    if module is None or getattr(module, "__dict__", None) is not namespace:
        return None
    filename = getattr(module, "__file__", None)
    return filename if isinstance(filename, str) else None


def evaluated_code_key(code: CodeType) -> int:
    """The key of what code made from a string reads: the names it and its nested code
    spell, or any name when one looks names up by string."""
    key = _evaluated.get(code)
    if key is None:
        key = _evaluated[code] = _spelled_key(code)
    return key


def _spelled_key(code: CodeType) -> int:
    names: set[str] = set()
    stack = [code]
    while stack:
        current = stack.pop()
        spelled, global_only, _ = code_reads(current)
        if _looks_up_by_string(current):
            return _key((None, frozenset([EVERY_NAME])))
        names |= spelled | global_only
        stack.extend(c for c in current.co_consts if type(c) is CodeType)
    return _key((None, frozenset(names)))


_GLOBAL_LOADS = frozenset(
    dis.opmap[name]
    for name in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS")
    if name in dis.opmap
)
_ATTRIBUTE_LOAD = dis.opmap["LOAD_ATTR"]
# Read off any object, these are namespaces; ``getattr`` and the like spelled as attributes
# are methods (jinja's template code calls ``environment.getattr``: project code, traced).
_NAMESPACE_ATTRIBUTES = frozenset(["__dict__", "__globals__", "modules", *FRAME_NAMESPACES])
_LOOKUP_SPELLINGS = DYNAMIC_NAMES | _NAMESPACE_ATTRIBUTES


def _looks_up_by_string(code: CodeType) -> bool:
    """Whether code made from a string calls a lookup by string (``getattr``, ``vars``...)
    or reads a namespace (``x.__dict__``). Every name these loads take is one of
    ``co_names``: code spelling none of them (most of jinja's templates, compiled anew in
    nearly every test) is not read instruction by instruction."""
    if _LOOKUP_SPELLINGS.isdisjoint(code.co_names):
        return False
    for _, opcode, name in instruction_arguments(code):
        if opcode in _GLOBAL_LOADS and name in DYNAMIC_NAMES:
            return True
        if opcode == _ATTRIBUTE_LOAD and name in _NAMESPACE_ATTRIBUTES:
            return True
    return False


def told_names(keys: Set[int], python_rel: Callable[[str], str | None]) -> set[str]:
    """What the told keys among ``keys`` read: a module's globals, by its project path
    (``own_globals.own_globals_read``), or names."""
    found: set[str] = set()
    for key in keys:
        if key < _FIRST_KEY:
            continue
        filename, names = _told[key - _FIRST_KEY]
        if filename is None:
            found |= names
            continue
        rel = python_rel(filename)
        found.add(EVERY_NAME if rel is None else own_globals_read(rel))
    return found
