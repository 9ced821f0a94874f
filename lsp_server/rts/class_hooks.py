"""Which of a module's hooked classes (``rts.class_frames``) their importers depend on.

A class whose statement may raise only by a hook its bases bring has its whole digest in
its ``C.<hooks>`` unit. A test that depends on anything of its module imported it, and depends on
that unit too unless the class, as the recording finds it made, ran no code but
``type``'s and ``typing``'s: made by ``type``, ``ABCMeta`` (which only collects abstract
methods) or ``Protocol``'s metaclass, from bases given as classes or as ``typing``'s
aliases (``__orig_bases__`` says), none of which but ``Generic`` and ``Protocol`` defines
``__init_subclass__``. A plain method added to such a class cannot make its
statement fail; a changed frame (bases, risky members) changes the module unit.
"""

from __future__ import annotations

import abc
import sys
import types
import typing
from collections.abc import Callable, Iterable
from types import CodeType, ModuleType

from lsp_server.project.files import ProjectPaths
from lsp_server.rts.creation_hooks import CreationLookups
from lsp_server.rts.file_units import Unit
from lsp_server.rts.hook_exposure import calls_only_class_statements
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.unit_names import HOOKS

# ``typing``'s hooks (``Generic.__init_subclass__``, ``Protocol``'s, its metaclass) check the
# bases and store on the new class alone: what its members are can neither make them raise
# nor reach anything else, as ``type``'s own code.
_PLAIN_METACLASSES = (type, abc.ABCMeta, type(typing.Protocol))
_TYPING_HOOK_BASES = (typing.Generic, typing.Protocol)
_TYPING_ALIASES = (typing._GenericAlias, types.GenericAlias)  # type: ignore[attr-defined]
"""Bases whose ``__mro_entries__`` is ``typing``'s (``t.Generic[V]``, ``list[int]``)."""


def made_without_hooks(module: ModuleType, name: str) -> bool:
    """Whether the top-level class ``name`` of ``module`` was made by ``type``'s code and
    ``typing``'s hooks alone (a class bound there under another name, or anything else:
    no)."""
    cls = vars(module).get(name)
    if not isinstance(cls, type) or type(cls) not in _PLAIN_METACLASSES:
        return False
    if cls.__module__ != module.__name__ or cls.__qualname__ != name:
        return False
    written = vars(cls).get("__orig_bases__", ())
    if not all(isinstance(base, (type, *_TYPING_ALIASES)) for base in written):
        return False
    return not any(
        "__init_subclass__" in vars(base)
        for base in cls.__mro__[1:-1]
        if base not in _TYPING_HOOK_BASES
    )


class HookedClasses:
    """The class units every importer of a module depends on, by path (once per session:
    the recording sees each module made once)."""

    def __init__(
        self, states: FileStates, paths: ProjectPaths, intern: Callable[[Unit], int]
    ) -> None:
        self._states = states
        self._paths = paths
        self._intern = intern
        self._by_path: dict[str, frozenset[int]] = {}
        self._modules: dict[str, ModuleType] = {}
        self._modules_seen = 0  # len(sys.modules) when ``_modules`` was built
        self._lookups = CreationLookups(states, paths, intern)
        # ``calls_only_class_statements`` by code object: each import that ran a class hook
        # asks it of every module and class body in its footprint, an outer import again
        # of the inner ones' (jinja: 337 questions about 98 code objects). The answer
        # depends on the bytecode alone, which equal code objects share.
        self._class_statements_only: dict[CodeType, bool] = {}

    def units(self, paths: Iterable[str]) -> set[int]:
        """The ids of the hooked class units of ``paths`` their importers depend on, and
        of what making the classes of those modules looked up (``rts.creation_hooks``)."""
        out: set[int] = set()
        for path in paths:
            found = self._by_path.get(path)
            if found is None:
                module = self.module(path)
                found = self._units_of(path, module)
                if module is not None:
                    found |= self._lookups.units(module)
                    self._by_path[path] = found
                elif self._states.units(path) is None:  # no Python file of the project
                    self._by_path[path] = found
                # else not imported yet: asked again once it is.
            out |= found
        return out

    def _units_of(self, path: str, module: ModuleType | None) -> frozenset[int]:
        file_units = self._states.units(path)
        if file_units is None or not file_units.hooked_classes:
            return frozenset()
        return frozenset(
            self._intern(Unit(path, name + HOOKS))
            for name in file_units.hooked_classes
            if module is None or not made_without_hooks(module, name)
        )

    def made_plain(self, path: str, name: str) -> bool:
        """Whether the module imported from ``path`` made its top-level class ``name`` by
        ``type``'s and ``typing``'s code alone (``made_without_hooks``)."""
        module = self.module(path)
        return module is not None and made_without_hooks(module, name)

    def may_hand_classes(self, code: CodeType) -> bool:
        """Whether module code or a class body ``code`` that ran with a class hook may have
        handed it a class of its own (``rts.hook_exposure``): a call but its class
        statements', or the body of a class a hook made (a nested one: not told)."""
        only = self._class_statements_only.get(code)
        if only is None:
            only = self._class_statements_only[code] = calls_only_class_statements(code)
        if not only:
            return True
        if code.co_name == "<module>":
            return False
        rel = self._paths.python_rel(code.co_filename)
        module = None if rel is None else self.module(rel)
        qualname = getattr(code, "co_qualname", None)  # 3.11+
        if module is None or qualname is None or "." in qualname:
            return True
        return not made_without_hooks(module, qualname)

    def module(self, path: str) -> ModuleType | None:
        """The module imported from ``path``, if any."""
        if path not in self._modules and len(sys.modules) != self._modules_seen:
            self._modules_seen = len(sys.modules)
            for module in list(sys.modules.values()):
                filename = getattr(module, "__file__", None)
                rel = self._paths.python_rel(filename) if isinstance(filename, str) else None
                if rel is not None:
                    self._modules.setdefault(rel, module)
        return self._modules.get(path)
