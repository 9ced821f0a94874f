"""What making a module's classes looked up on other classes: its importers depend on it.

Making a class (a class statement, a call of ``type``) looks names up on other classes,
not in the code that makes it: ``__init_subclass__`` through the MRO of its bases,
``__new__``, ``__init__`` and ``__prepare__`` on its metaclass (the most derived of its
bases' types, so told by their MROs too), ``__call__`` on the metaclass's type,
``__set_name__`` on the type of each value of its namespace, ``__mro_entries__`` on a base
that is no class and ``__class_getitem__`` (or the metaclass's ``__getitem__``) on the class
a subscripted base names. A hook found there ran when the module was imported (traced: its
importers depend on it). A name *not* found there is a binding that is absent: a base in
another module that gains an ``__init_subclass__`` makes the subclass module's import run
it, while the importers that never reach the subclass read nothing of the base (a dunder
is found without its name in any code).

So every test that depends on a module depends, for each class the module made (bound in
its namespace, nested classes included) and each project class ``K`` such a name was
looked up on, on the unit ``K.name`` (a method's body, or the alias unit of an assignment
in a class that is a binding: ``rts.bindings``), recorded without a checksum while absent
(absent, then present, is a change: ``select.changed_units``), and on ``K``'s module unit
(a class kept there holds its hooks there; a changed header, metaclass keyword included,
changes it: ``rts.class_frames``). A plain method the base gains binds no such name: only
the tests that reach the class see it (``rts.member_receivers``).

``__slots__`` of every class of the MRO counts for a class with several bases or slots of
its own: a base gaining slots can make their layouts clash. Classes a module made but
bound nowhere in its namespace (a registry's) are not found.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterator
from types import FunctionType, ModuleType

from lsp_server.project.files import ProjectPaths
from lsp_server.rts.file_units import Unit
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.spans import LOCALS
from lsp_server.rts.unit_names import MODULE

_METACLASS_HOOKS = ("__new__", "__init__", "__prepare__")


def made_classes(module: ModuleType) -> list[type]:
    """The classes ``module`` made that its namespace holds, and the classes nested in
    those (only dictionaries are read: no code of the project runs)."""
    name = vars(module).get("__name__")
    found: list[type] = []
    seen: set[int] = set()
    stack = list(vars(module).values())
    while stack:
        value = stack.pop()
        if not issubclass(type(value), type) or id(value) in seen:
            continue
        seen.add(id(value))
        if vars(value).get("__module__") == name:
            found.append(value)
            stack.extend(vars(value).values())
    return found


def looked_up(cls: type) -> Iterator[tuple[type, str]]:
    """(class, name): each lookup in a class namespace that making ``cls`` did, whether it
    found the name or not."""
    for base in cls.__mro__[1:]:
        yield base, "__init_subclass__"
        if len(cls.__bases__) > 1 or "__slots__" in vars(cls):
            yield base, "__slots__"
    metaclass: type = type(cls)
    for meta in metaclass.__mro__:
        for name in _METACLASS_HOOKS:
            yield meta, name
    maker: type = type(metaclass)
    for meta in maker.__mro__:
        yield meta, "__call__"
    for value in list(vars(cls).values()):
        for owner in type(value).__mro__:
            yield owner, "__set_name__"
    originals = vars(cls).get("__orig_bases__", ())
    for original in originals if isinstance(originals, tuple) else ():
        if not issubclass(type(original), type):
            for owner in type(original).__mro__:
                yield owner, "__mro_entries__"
        origin = inspect.getattr_static(original, "__origin__", None)
        if issubclass(type(origin), type):
            for owner in origin.__mro__:
                yield owner, "__class_getitem__"
            for owner in type(origin).__mro__:
                yield owner, "__getitem__"


class CreationLookups:
    """The units of what making each module's classes looked up, by module path (once
    per session: the recording sees each module made once)."""

    def __init__(
        self, states: FileStates, paths: ProjectPaths, intern: Callable[[Unit], int]
    ) -> None:
        self._states = states
        self._paths = paths
        self._intern = intern
        # By id of a class (kept alive by the value): its file and qualified name, or None
        # for a library's class (it changes with the environment only).
        self._owners: dict[int, tuple[type, tuple[str, str] | None]] = {}

    def units(self, module: ModuleType) -> frozenset[int]:
        """The ids of the units the classes ``module`` made looked names up in."""
        out: set[int] = set()
        for cls in made_classes(module):
            for owner, name in looked_up(cls):
                where = self._where(owner)
                if where is not None:
                    out.update(map(self._intern, self._lookup_units(*where, name)))
        return frozenset(out)

    def _lookup_units(self, path: str, qualname: str, name: str) -> Iterator[Unit]:
        yield Unit(path, MODULE)
        yield Unit(path, f"{qualname}.{name}")
        if LOCALS in qualname:  # a class made in a function: its statement is that body's
            file_units = self._states.units(path)
            if file_units is not None:
                yield file_units.unit_for_qualname(qualname)

    def _where(self, owner: type) -> tuple[str, str] | None:
        known = self._owners.get(id(owner))
        if known is not None:
            return known[1]
        where = None
        qualname = getattr(owner, "__qualname__", None)
        filename = _defined_in(owner, qualname) if isinstance(qualname, str) else None
        rel = self._paths.python_rel(filename) if filename is not None else None
        if rel is not None and isinstance(qualname, str):
            where = (rel, qualname)
        self._owners[id(owner)] = (owner, where)
        return where


_FUNCTION_HOLDERS = (classmethod, staticmethod)


def _defined_in(owner: type, qualname: str) -> str | None:
    """The file of the class statement of ``owner``: that of a function its body defined
    (a package may set ``__module__`` of a class it re-exports to its own name), else that
    of the module ``__module__`` names."""
    for value in list(vars(owner).values()):
        if type(value) in _FUNCTION_HOLDERS:
            value = value.__func__
        if type(value) is FunctionType and value.__qualname__.startswith(qualname + "."):
            return value.__code__.co_filename
    module = sys.modules.get(str(vars(owner).get("__module__")))
    # Read from the namespace: a module ``__getattr__`` would run project code.
    filename = vars(module).get("__file__") if isinstance(module, ModuleType) else None
    return filename if isinstance(filename, str) else None
