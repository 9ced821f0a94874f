"""The steps of ``rts.binding_reads``'s closure: from a name read, in a test's modules, to
the binding units of the name there and the names their statements read at import.

The bindings of every module indexed so far are kept by name. A step depends on the test
only through its modules, and most tests of a session depend on the same few sets of
them, so ``BindingReads`` keeps the steps of each set. Most names are bound in modules
every such set holds: their step is the one over every module, computed once and shared
by every set (jinja's 62 sets of modules made 31,000 steps of ~1,000 names, each
computed and kept anew).
"""

from __future__ import annotations

from collections.abc import Callable, Set

from lsp_server.rts.bound_names import is_dunder
from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.names_read import NO_STEP, Pair, Step
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.subclassing import read_name, twins_read, type_read
from lsp_server.rts.unit_names import HEADER, SUBCLASSING, read_parts

Split = Callable[[FileUnits, str], tuple[frozenset[str], ...]]
"""(read anywhere, read only as the module's globals) of what a unit's statement reads."""


class BindingSteps:
    """The binding units of the modules indexed so far, and the steps from a name."""

    def __init__(self, states: FileStates, intern: Callable[[Unit], int], split: Split) -> None:
        self._states = states
        self._intern = intern
        self._split = split
        # A name -> (path, unit name) of the binding units of every file indexed so far.
        self.bound: dict[str, list[tuple[str, str]]] = {}
        self._bound_names: frozenset[str] | None = None  # ``bound``'s keys, while it holds
        self._indexed: set[str] = set()
        # A name -> the modules indexed so far that bind it; a pair -> its step over all.
        self._binding_paths: dict[str, frozenset[str]] = {}
        self._whole_steps: dict[Pair, Step] = {}
        self._bindings: dict[tuple[str, str], tuple[int, frozenset[Pair]]] = {}
        # What a read as a base finds (``rts.subclassing``): its twins, and each binding's.
        self._twins: set[str] = set()
        self._type_bindings: dict[tuple[str, str], tuple[int, frozenset[Pair]]] = {}

    def index(self, path: str, file_units: FileUnits) -> None:
        """Keep the bindings of module ``path`` (once)."""
        if path in self._indexed:
            return
        self._indexed.add(path)
        self._bound_names = None
        for name, unit_names in file_units.bound.items():
            if is_dunder(name):
                unit_names = [u for u in unit_names if not _held_by_class(file_units, name, u)]
            self.bound.setdefault(name, []).extend((path, u) for u in unit_names)
            if unit_names:  # the name's steps over every module gain this one
                self._binding_paths[name] = self._binding_paths.get(name, frozenset()) | {path}
                for read in (name, type_read(name)):
                    self._whole_steps.pop((read, None), None)
                    self._whole_steps.pop((read, path), None)
        self._twins.update(map(type_read, twins_read(file_units)))

    @property
    def bound_names(self) -> frozenset[str]:
        """The names some module indexed so far binds: a set, so that intersecting a
        test's names with it walks the smaller side (a keys view walked every name bound,
        thousands, for each test)."""
        names = self._bound_names
        if names is None:
            names = self._bound_names = frozenset(self.bound).union(self._twins)
        return names

    def step(self, pair: Pair, paths: Set[str]) -> Step:
        """The binding units of ``pair``'s name in ``paths`` (in its module alone when the
        name is read only as a global there) and the (name, scope) pairs their statements
        read at import: one step of the closure, the same for every test whose modules
        are ``paths``. Where ``paths`` holds every module binding the name (or the one
        module of its scope), that is the step over every module, kept once."""
        name, scope = pair
        where = self._binding_paths.get(read_name(name), frozenset())
        if where <= paths if scope is None else scope in paths:
            whole = self._whole_steps.get(pair)
            if whole is None:
                whole = self._whole_steps[pair] = self._bindings_step(pair, where)
            return whole
        return self._bindings_step(pair, paths)

    def _bindings_step(self, pair: Pair, paths: Set[str]) -> Step:
        """``step`` from the bindings of ``pair``'s name indexed so far."""
        name, scope = pair
        uids: set[int] = set()
        pairs: set[Pair] = set()
        plain = read_name(name)
        info = self._binding_info if plain == name else self._type_binding_info
        for path, unit_name in self.bound.get(plain, ()):
            if path in paths and scope in (None, path):
                uid, read = info(path, unit_name)
                uids.add(uid)
                pairs |= read
        return (frozenset(uids), frozenset(pairs)) if uids else NO_STEP

    def _binding_info(self, path: str, unit_name: str) -> tuple[int, frozenset[Pair]]:
        """A binding unit's id and what its statement reads (``split``) as (name, scope)
        pairs to follow."""
        key = (path, unit_name)
        cached = self._bindings.get(key)
        if cached is None:
            file_units = self._states.units(path)
            assert file_units is not None
            split = self._split(file_units, unit_name)
            pairs: frozenset[Pair] = frozenset(
                {(n, None) for n in split[0]} | {(n, path) for n in split[1]}
            )
            if len(split) > 2:  # names read as another module's globals (a ``from`` import)
                pairs |= {read_parts(read) for read in split[2]}
            cached = self._bindings[key] = (self._intern(Unit(path, unit_name)), pairs)
        return cached

    def _type_binding_info(self, path: str, unit_name: str) -> tuple[int, frozenset[Pair]]:
        """``_binding_info`` of what reading the name of binding ``unit_name`` only as a
        base finds: a class's ``SUBCLASSING`` unit, a ``from`` import reading its name as
        a base, any other binding whole (``rts.subclassing``)."""
        key = (path, unit_name)
        cached = self._type_bindings.get(key)
        if cached is None:
            file_units = self._states.units(path)
            assert file_units is not None
            seen = unit_name + SUBCLASSING
            cached = self._binding_info(path, unit_name)
            if seen in file_units.checksums:
                cached = self._binding_info(path, seen)
            elif unit_name in file_units.from_imports:
                imported = file_units.from_imports[unit_name][2]
                uid, pairs = cached
                twinned = {(type_read(n) if n == imported else n, at) for n, at in pairs}
                cached = (uid, frozenset(twinned))
            self._type_bindings[key] = cached
        return cached


def _held_by_class(file_units: FileUnits, name: str, unit_name: str) -> bool:
    """Whether ``unit_name`` is the header of dunder method ``name`` of a top-level class
    with a unit of its own, whose checksum holds the header: reading the name then leads
    nowhere the class does not. Code reaches ``C.__init__`` only through an object or
    class it got by reading ``C`` or a subclass (whose statement reads ``C``), or by running
    it (its header is then a dependency of what ran): tenacity's tests all ran some
    ``super().__init__()``, and a changed ``wait_exponential_jitter.__init__`` header
    (1106b9a) selected 155 tests against testmon's 150."""
    owner, _, rest = unit_name.partition(".")
    return rest == name + HEADER and owner in file_units.classes
