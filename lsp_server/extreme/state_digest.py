"""What a run of tests can leave behind in its process, read without running project code:
the state that decides whether a kept child (``kept_child``) may run another
transformation's tests as if it were freshly forked.

A transformation's verdict must be the one a child forked from the collected-but-unrun
worker gives. A kept child runs the next transformation only while ``StateDigest.read``
equals what it read before its first run: the contents, followed through containers,
instances, functions (defaults, closure cells, attributes) and the project's classes, of
every module loaded from a file of the project (its code and its tests); the loaded
module names; the ``functools`` caches' sizes and misses; and the process's own settings
a test may change (environment, working directory, ``sys.path``, the random state, warning
filters, locale, decimal context, signal handlers, trace functions, logging, threads).

What it cannot see, it treats as changed: a walk longer than ``LIMIT`` objects is no
digest at all. Opaque C objects (a lock, a compiled pattern) are compared by identity
only: a change inside one (an ``itertools.count`` of a module is read by its ``repr``) is
the limit of this check, which is why an undetected verdict of a kept child is run again
in a fresh child (``kept_child``). Standard library only (runs in the worker).
"""

from __future__ import annotations

import builtins
import decimal
import functools
import locale
import logging
import os
import random
import signal
import sys
import threading
import types
import warnings
from collections import deque
from typing import Any

LIMIT = 40_000
"""Objects one reading may visit; a larger state is not read, and the worker forks a
child per transformation again (a reading costs about a microsecond per object)."""

_ATOMS = (type(None), bool, int, float, complex, str, bytes, range, type(Ellipsis))
_OPAQUE = (
    types.ModuleType,
    types.BuiltinFunctionType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
    types.CodeType,
)
_SIGNALS = [
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGCHLD", "SIGPIPE")
    if hasattr(signal, name)
]
_LRU_CACHE: type = getattr(functools, "_lru_cache_wrapper", type(None))
_REPR_STATE = ("itertools.count", "itertools.cycle", "itertools.repeat")
"""C iterators of ``itertools`` whose ``repr`` shows their position."""


class TooLarge(Exception):
    """The walk passed ``LIMIT`` objects."""


class StateDigest:
    """Reads the state of one process over the modules of the project under ``root``."""

    def __init__(self, root: str) -> None:
        self.prefix = os.path.realpath(root) + os.sep

    def read(self) -> list[Any] | None:
        """The state, comparable with ``==``; None when it is too large to read."""
        tokens: list[Any] = [_process_settings()]
        modules = self._project_modules()
        tokens.append(sorted(sys.modules))
        walk = _Walk(tokens, {id(m) for m in modules.values()}, set(modules))
        try:
            for name in sorted(modules):
                walk.module(modules[name])
        except TooLarge:
            return None
        return tokens

    def _project_modules(self) -> dict[str, types.ModuleType]:
        found: dict[str, types.ModuleType] = {}
        for name, module in list(sys.modules.items()):
            path = getattr(module, "__file__", None)
            if not isinstance(path, str) or "site-packages" in path:
                continue
            if os.path.realpath(path).startswith(self.prefix):
                found[name] = module
        return found


class _Walk:
    """One reading: tokens appended in a fixed order, each object visited once."""

    def __init__(self, tokens: list[Any], module_ids: set[int], names: set[str]) -> None:
        self.tokens = tokens
        self.seen: dict[int, int] = {**{i: -1 for i in module_ids}}
        self.module_names = names
        self.count = 0

    def module(self, module: types.ModuleType) -> None:
        self.tokens.append(("module", module.__name__))
        self.namespace(vars(module))

    def namespace(self, names: dict[str, Any]) -> None:
        for key in sorted(k for k in dict.keys(names) if isinstance(k, str)):
            if key not in ("__builtins__", "__loader__", "__spec__", "__cached__"):
                self.tokens.append(key)
                self.value(dict.__getitem__(names, key))

    def value(self, obj: Any) -> None:
        kind = type(obj)
        if kind in _ATOMS:
            self.tokens.append(obj)
            return
        key = id(obj)
        if key in self.seen:
            self.tokens.append(("seen", self.seen[key]))
            return
        self.count += 1
        if self.count > LIMIT:
            raise TooLarge
        self.seen[key] = self.count
        self.tokens.append((kind.__qualname__, key))
        self.inside(obj, kind)

    def inside(self, obj: Any, kind: type) -> None:
        # ``issubclass`` on the real type and the base types' own methods: no code of the
        # project's classes (a proxy's ``__class__``, an ``__iter__``) runs here.
        if issubclass(kind, _OPAQUE):
            return
        if issubclass(kind, dict):
            self.tokens.append(len(obj))
            for k, v in list(dict.items(obj)):
                self.value(k)
                self.value(v)
        elif issubclass(kind, (list, tuple, deque)):
            self.items(obj, kind)
        elif issubclass(kind, (set, frozenset)):
            self.tokens.append(len(obj))
            for item in sorted(set.__iter__(obj) if issubclass(kind, set) else obj, key=_order):
                self.value(item)
        elif kind is types.FunctionType:
            self.function(obj)
        elif issubclass(kind, type):
            self.klass(obj)
        elif kind is types.MethodType:
            self.value(obj.__func__)
            self.value(obj.__self__)
        elif issubclass(kind, functools.partial):
            self.value(obj.func)
            self.value((obj.args, obj.keywords))
            self.attributes(obj)
        elif issubclass(kind, random.Random):
            self.tokens.append(random.Random.getstate(obj))
            self.attributes(obj)
        else:
            self.other(obj, kind)

    def items(self, obj: Any, kind: type) -> None:
        if issubclass(kind, list):
            members = list.__getitem__(obj, slice(None))
        elif issubclass(kind, tuple):
            members = list(tuple.__getitem__(obj, slice(None)))
        else:
            members = list(deque.__iter__(obj))
        self.tokens.append(len(members))
        for item in members:
            self.value(item)
        if kind not in (list, tuple, deque):
            self.attributes(obj)  # a named tuple's class, a subclass's own attributes

    def function(self, function: types.FunctionType) -> None:
        self.tokens.append(id(function.__code__))
        self.value(function.__defaults__)
        self.value(function.__kwdefaults__)
        for cell in function.__closure__ or ():
            try:
                self.value(cell.cell_contents)
            except ValueError:  # an empty cell
                self.tokens.append("empty")
        self.value(function.__dict__)

    def klass(self, klass: type) -> None:
        if klass.__module__ not in self.module_names:
            return  # a library's class: by identity (its instances are followed)
        self.tokens.append(len(type.__subclasses__(klass)))
        for key, value in sorted(vars(klass).items(), key=lambda kv: kv[0]):
            self.tokens.append(key)
            self.value(value)

    def other(self, obj: Any, kind: type) -> None:
        if issubclass(kind, _LRU_CACHE):  # a ``functools`` cache: a new entry is state
            stats = obj.cache_info()
            self.tokens.append((stats.misses, stats.currsize))
            self.value(getattr(obj, "__wrapped__", None))
            self.attributes(obj)
            return
        if f"{kind.__module__}.{kind.__qualname__}" in _REPR_STATE:
            self.tokens.append(repr(obj))
            return
        self.attributes(obj)

    def attributes(self, obj: Any) -> None:
        """The instance's ``__dict__`` and slots, read past any ``__getattribute__``."""
        try:
            names = object.__getattribute__(obj, "__dict__")
        except (AttributeError, TypeError):
            names = None
        if isinstance(names, dict):
            self.value(names)
        for klass in type(obj).__mro__:
            for slot in vars(klass).values():
                if isinstance(slot, types.MemberDescriptorType):
                    try:
                        self.value(slot.__get__(obj, type(obj)))
                    except AttributeError:
                        self.tokens.append("unset")


def _order(item: Any) -> tuple[str, Any]:
    """A sort key for a set's members whatever their types (atoms by value)."""
    kind = type(item)
    return (kind.__qualname__, item if kind in (int, str, bytes) else id(item))


def _process_settings() -> list[Any]:
    """The process-wide settings a test can change and not put back."""
    with warnings.catch_warnings():
        filters = list(warnings.filters)
    root = logging.getLogger()
    return [
        dict(os.environ),
        _cwd(),
        list(sys.path),
        [(f[0], id(f[1]), id(f[2]), id(f[3]), f[4]) for f in filters],
        locale.setlocale(locale.LC_ALL),
        repr(decimal.getcontext()),
        [id(signal.getsignal(s)) for s in _SIGNALS],
        (id(sys.gettrace()), id(sys.getprofile()), sys.getrecursionlimit()),
        (root.level, [id(h) for h in root.handlers], logging.root.manager.disable),
        sorted(id(t) for t in threading.enumerate()),
        (id(sys.stdout), id(sys.stderr), id(sys.stdin), id(sys.excepthook)),
        [(name, id(value)) for name, value in vars(builtins).items()],
    ]


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return ""
