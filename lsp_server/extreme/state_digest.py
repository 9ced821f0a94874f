"""What a run of tests can leave behind in its process, read without running project code:
the state that decides whether a kept child (``kept_child``) may run another
transformation's tests as if it were freshly forked.

A transformation's verdict must be the one a child forked from the collected-but-unrun
worker gives. ``StateDigest`` is taken in the worker (the fresh state) and compared in
the kept child after each run (``changed``): every mutable object reachable from the
modules loaded from files of the project (its code and its tests), followed through
containers, instances (``__dict__`` and slots), functions (code, defaults, closure
cells, attributes) and the project's classes (their namespace, their subclasses), must
still hold the very same objects (compared by identity: no project ``__eq__`` runs);
``functools`` caches their misses and size, ``random.Random`` instances their state; the
loaded modules, the builtins, and the process's settings a test may change (environment,
working directory, ``sys.path``, warning filters, locale, decimal context, signal
handlers, trace functions, logging, threads) must be equal.

What it cannot see is the limit of this check: a state reachable from more than
``LIMIT`` objects is not taken (the worker forks per transformation then); an opaque C
object (a lock, a compiled pattern, a library's C state) and pytest's configuration are
compared by identity only; ``itertools`` counters and cycles by their ``repr``. So a kept
child's later ``undetected`` verdict is run again in a fresh child (``kept_child``).
Standard library only (runs in the worker).
"""

from __future__ import annotations

import builtins
import decimal
import functools
import gc
import locale
import logging
import operator
import os
import random
import signal
import sys
import threading
import types
import warnings
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

LIMIT = 10_000
"""Mutable objects one digest may follow; a larger state is not taken (taking costs about
10 us an object: boltons' 21,000 took 235 ms, more than forking saves there)."""

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
_RUNNER_CONFIG = ("_pytest.config", "Config")
"""pytest's configuration (module, class): the test runner's, not the project's. A test
module reaches it through ``pytest.mark`` (``from pytest import mark``) and with it all of
pytest's and its plugins' objects (boltons: past ``LIMIT``, so no kept child); a test
changes it through ``request.config``, which the walk never reached. Compared by identity."""
_GLOBAL_RANDOM = getattr(random.random, "__self__", None)
"""The ``random`` module's own generator: seeded anew in each forked child (by ``random``
itself), so no part of the fresh state; a kept child seeds it anew before each run."""
_PYTEST_OWN = "PYTEST_CURRENT_TEST"
"""Set by pytest at each phase of each test (and removed after it): no test sees another's."""
_EMPTY = object()
"""An empty closure cell's content."""

Reader = Callable[[Any], Any]
Tracked = tuple[Any, Reader, Any, bool]
"""An object, how to read it, what it read in the fresh state, and whether that is
compared by value (else: the same objects, in the same order)."""
_FUNCTION_PARTS = operator.attrgetter("__code__", "__defaults__", "__kwdefaults__", "__dict__")
"""What the walk follows of a function (``__closure__``: its cells are read apart). Reading
``__dict__`` makes it where a function has none yet, as any later reader would: so the
fresh state holds it."""
_ANNOTATIONS = operator.attrgetter("__annotations__")
"""Read at the walk to make a function's annotations where it has none (``inspect.signature``
in a test would): a check compares which object they are (``_referents``), not what they
hold, so they add no object to follow (``LIMIT``)."""
_CELL = operator.attrgetter("cell_contents")


def _referents(objects: list[Any]) -> list[Any]:
    """What ``objects`` hold, as the collector sees it, in one call: for a function, every
    field a run can rebind (code, defaults, ``__dict__``, annotations, name, doc...). Its
    attribute getters each raise an audit event (``object.__getattr__``) that every audit
    hook of the worker (reks's, the project's) answers in Python: 2-4 ms a check on
    more-itertools' 908 functions, where this takes 0.05 ms."""
    return gc.get_referents(*objects)


@dataclass(frozen=True)
class _Kind:
    """How the objects of one group are read, all at once (the base type's own methods:
    C loops, no project code): their sizes (None: fixed), and their members in order, one
    object at a time (``members``: what the walk follows) or, when ``together`` is given,
    all of them in one call (what a check compares)."""

    size: Reader | None
    members: Reader
    together: Callable[[list[Any]], list[Any]] | None = None


_DICT_KEYS = _Kind(dict.__len__, dict.keys)
_DICT_VALUES = _Kind(dict.__len__, dict.values)
_LISTS = _Kind(list.__len__, list.__iter__)
_SETS = _Kind(set.__len__, set.__iter__)
_DEQUES = _Kind(deque.__len__, deque.__iter__)
_FUNCTIONS = _Kind(None, _FUNCTION_PARTS, _referents)
_CELLS = _Kind(None, lambda cell: (_CELL(cell),))
_SUBCLASSES = _Kind(None, type.__subclasses__)


@dataclass
class _Group:
    kind: _Kind
    objects: list[Any] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    members: list[Any] = field(default_factory=list)
    # The objects whose members are read: of a sized kind, those that held any when taken
    # (most are empty: a function's ``__dict__``); with the sizes equal, the others still
    # hold none. A check reads their members only, about 1 us an object less.
    filled: list[Any] = field(default_factory=list)

    def settle(self) -> None:
        """Take the fresh sizes and members."""
        size = self.kind.size
        self.sizes = list(map(size, self.objects)) if size is not None else []
        if size is None:
            self.filled = self.objects
        else:
            self.filled = [obj for obj, held in zip(self.objects, self.sizes, strict=True) if held]
        self.members = self._members()

    def _members(self) -> list[Any]:
        together = self.kind.together
        if together is not None:
            return together(self.filled)
        return list(chain.from_iterable(map(self.kind.members, self.filled)))

    def changed(self) -> bool:
        size = self.kind.size
        if size is not None and list(map(size, self.objects)) != self.sizes:
            return True
        try:
            members = self._members()
        except ValueError:  # a closure cell emptied
            return True
        if len(members) != len(self.members):
            return True
        return not all(map(operator.is_, members, self.members))


class TooLarge(Exception):
    """The state has more than ``LIMIT`` mutable objects."""


class StateDigest:
    """The fresh state of the process over the project under ``root``; None from ``take``
    when it is too large."""

    def __init__(self, groups: list[_Group], others: list[Tracked]) -> None:
        self.groups = groups
        for group in groups:
            group.settle()
        self.others = others
        self.settings = _process_settings()

    @classmethod
    def take(cls, root: str) -> StateDigest | None:
        walk = _Walk()
        walk.track(sys.modules, _DICT_KEYS, _DICT_VALUES)
        walk.track(vars(builtins), _DICT_KEYS, _DICT_VALUES)
        prefix = os.path.realpath(root) + os.sep
        try:
            for module in _project_modules(prefix):
                walk.module_names.add(module.__name__)
            for module in _project_modules(prefix):
                walk.value(vars(module))
        except (TooLarge, RecursionError):
            return None
        return cls(list(walk.groups.values()), walk.others)

    def settle(self) -> None:
        """In the child, before its first run: its own settings are the fresh ones (the
        worker's threads and ``SIGTERM`` handler are not inherited)."""
        self.settings = _process_settings()

    def changed(self) -> bool:
        """Whether the state differs from the fresh one (see the module docstring)."""
        if _process_settings() != self.settings:
            return True
        if any(group.changed() for group in self.groups):
            return True
        for obj, read, fresh, by_value in self.others:
            now = read(obj)
            if by_value:
                if now != fresh:
                    return True
            elif len(now) != len(fresh) or not all(map(operator.is_, now, fresh)):
                return True
        return False


def _project_modules(prefix: str) -> list[types.ModuleType]:
    found = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or "site-packages" in path:
            continue
        if os.path.realpath(path).startswith(prefix):
            found.append(module)
    return found


class _Walk:
    """Follows every object reachable from the project's modules once; notes the mutable
    ones with what they hold now."""

    def __init__(self) -> None:
        self.groups: dict[_Kind, _Group] = {}
        self.others: list[Tracked] = []
        self.count = 0
        self.seen: set[int] = set()
        self.module_names: set[str] = set()

    def track(self, obj: Any, *kinds: _Kind) -> list[Any]:
        """Note ``obj`` in the groups of ``kinds``; what it holds now."""
        self.count += 1
        if self.count > LIMIT:
            raise TooLarge
        held: list[Any] = []
        for kind in kinds:
            self.groups.setdefault(kind, _Group(kind)).objects.append(obj)
            held += kind.members(obj)
        return held

    def track_other(self, obj: Any, read: Reader, by_value: bool = False) -> Any:
        self.count += 1
        if self.count > LIMIT:
            raise TooLarge
        now = read(obj)
        self.others.append((obj, read, now, by_value))
        return now

    def value(self, obj: Any) -> None:
        kind = type(obj)
        if kind in _ATOMS or id(obj) in self.seen:
            return
        self.seen.add(id(obj))
        # ``issubclass`` on the real type and the base types' own methods: no code of the
        # project's classes (a proxy's ``__class__``, an ``__iter__``) runs here.
        if issubclass(kind, _OPAQUE) or (kind.__module__, kind.__qualname__) == _RUNNER_CONFIG:
            return
        if issubclass(kind, dict):
            self.values(self.track(obj, _DICT_KEYS, _DICT_VALUES))
        elif issubclass(kind, list):
            self.values(self.track(obj, _LISTS))
        elif issubclass(kind, set):
            self.values(self.track(obj, _SETS))
        elif issubclass(kind, deque):
            self.values(self.track(obj, _DEQUES))
        elif issubclass(kind, tuple):
            self.values(tuple.__getitem__(obj, slice(None)))
        elif issubclass(kind, frozenset):
            self.values(frozenset.__iter__(obj))
        elif kind is types.FunctionType:
            self.function(obj)
        elif issubclass(kind, type):
            self.klass(obj)
        elif kind is types.MethodType:
            self.values((obj.__func__, obj.__self__))
        elif issubclass(kind, functools.partial):
            self.values((obj.func, obj.args, obj.keywords))
        else:
            self.other(obj, kind)
        if kind not in (dict, list, tuple, set, frozenset, deque, types.FunctionType):
            self.attributes(obj, kind)

    def values(self, objects: Any) -> None:
        for obj in objects:
            self.value(obj)

    def function(self, function: types.FunctionType) -> None:
        _ANNOTATIONS(function)
        self.values(self.track(function, _FUNCTIONS))
        for cell in function.__closure__ or ():
            try:
                self.value(self.track(cell, _CELLS)[0])
            except ValueError:  # empty now: read one by one
                self.track_other(cell, _cell_content)

    def klass(self, klass: type) -> None:
        if klass.__module__ in self.module_names:  # a library's class: by identity
            # Its namespace is read as any dict, with the others in C loops: read class
            # by class (a Python call each) it was most of a check on more-itertools.
            self.value(_namespace(klass))
            self.values(self.track(klass, _SUBCLASSES))

    def other(self, obj: Any, kind: type) -> None:
        if issubclass(kind, _LRU_CACHE):  # a ``functools`` cache: a new entry is state
            self.track_other(obj, _cache_stats, by_value=True)
        elif issubclass(kind, random.Random) and obj is not _GLOBAL_RANDOM:
            self.track_other(obj, random.Random.getstate, by_value=True)
        elif f"{kind.__module__}.{kind.__qualname__}" in _REPR_STATE:
            self.track_other(obj, repr, by_value=True)

    def attributes(self, obj: Any, kind: type) -> None:
        """The instance's ``__dict__`` and slots, read past any ``__getattribute__``."""
        if issubclass(kind, type):
            return
        try:
            names = object.__getattribute__(obj, "__dict__")
        except (AttributeError, TypeError):
            names = None
        if isinstance(names, dict):
            self.value(names)
        slots = [  # a C type's members read its fields anew (an int: a new object)
            slot
            for klass in kind.__mro__
            if "__slots__" in vars(klass)
            for slot in vars(klass).values()
            if isinstance(slot, types.MemberDescriptorType)
        ]
        if slots:
            self.values(self.track_other(obj, functools.partial(_slot_values, slots)))


def _cell_content(cell: types.CellType) -> list[Any]:
    try:
        return [cell.cell_contents]
    except ValueError:
        return [_EMPTY]


def _namespace(klass: type) -> dict[str, Any]:
    """The dict a class keeps its names in (``vars`` gives a read-only view of it, whose
    contents the collector reports): ``setattr`` and ``delattr`` on the class change it."""
    (names,) = gc.get_referents(type.__dict__["__dict__"].__get__(klass))
    return names


def _cache_stats(cache: Any) -> tuple[int, int]:
    stats = cache.cache_info()
    return stats.misses, stats.currsize


def _slot_values(slots: list[types.MemberDescriptorType], obj: Any) -> list[Any]:
    found = []
    for slot in slots:
        try:
            found.append(slot.__get__(obj, type(obj)))
        except AttributeError:
            found.append(_EMPTY)
    return found


def _process_settings() -> list[Any]:
    """The process-wide settings a test can change and not put back."""
    root = logging.getLogger()
    return [
        {k: v for k, v in os.environ.items() if k != _PYTEST_OWN},
        _cwd(),
        list(sys.path),
        [(f[0], id(f[1]), id(f[2]), id(f[3]), f[4]) for f in warnings.filters],
        locale.setlocale(locale.LC_ALL),
        repr(decimal.getcontext()),
        [id(signal.getsignal(s)) for s in _SIGNALS],
        (id(sys.gettrace()), id(sys.getprofile()), sys.getrecursionlimit()),
        (root.level, [id(h) for h in root.handlers], logging.root.manager.disable),
        sorted(id(t) for t in threading.enumerate()),
        (id(sys.stdout), id(sys.stderr), id(sys.stdin), id(sys.excepthook)),
    ]


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return ""
