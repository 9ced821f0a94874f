"""Which binding units (``rts.bindings``) of the modules a test depends on it reads.

``UnitAttribution`` knows what a test ran; this part follows the names that code read to
the units binding them (closed over what those bindings read at import), adds the bodies
and docstrings the test may see (``rts.lookups``) and the ``NAMES`` units. It runs once
per test: what does not depend on the test (a module's every unit but the bodies, a
header's body and docstring, the names a module hands to library code) is computed once
per session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Set
from operator import itemgetter

from lsp_server.rts.binding_steps import BindingSteps
from lsp_server.rts.callee_classes import unproved_reads
from lsp_server.rts.code_read_targets import TOLD
from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.from_import_reads import from_import_split, taken_by_imports
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.lookups import DOC_READS
from lsp_server.rts.module_docstring import MODULE_DOC
from lsp_server.rts.names_read import (
    NO_SPLIT,
    FollowedBase,
    NamesRead,
    Pair,
    PartsRead,
    Step,
    UnitInfo,
    attribute_prefixes,
    split_pairs,
)
from lsp_server.rts.noted_splits import NotedSplits
from lsp_server.rts.reads import EVERY_NAME, NAMES
from lsp_server.rts.seen_bodies import SeenBodies
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.string_lookup_units import StringLookupUnits
from lsp_server.rts.subclassing import read_name, spells_twin, twin_split
from lsp_server.rts.unit_names import MODULE, module_read


class BindingReads:
    """Session caches for ``read``; ``intern`` maps a unit to its small int id and
    ``units`` is the list it indexes."""

    def __init__(
        self,
        states: FileStates,
        resolver: ImportResolver,
        intern: Callable[[Unit], int],
        units: list[Unit],
        made_plain: Callable[[str, str], bool],
    ) -> None:
        self.states = states
        self._plain = made_plain  # ``class_hooks.HookedClasses.made_plain``
        self.resolver = resolver
        self._intern = intern
        self._units = units
        # What a lookup by string finds, by module and by set of modules.
        self._string_units = StringLookupUnits(states, intern)
        self._bodies = SeenBodies(states, resolver, intern, units)
        self._noted = NotedSplits(states, units)
        # (path, unit name) -> what ``_split`` says.
        self._splits: dict[tuple[str, str], tuple[frozenset[str], ...]] = {}
        # Per unit id, what ``read`` needs of a unit that ran and of a binding unit found,
        # and the ids of the NAMES units: the same units recur in every test.
        self._unit_infos: dict[int, UnitInfo] = {}
        self._name_ids: dict[str, int] = {}
        # The same ids by scope (None: read anywhere, else the module's path) and name: a
        # test reads hundreds of names, looked up in C (``_names_ids``).
        self._scoped_ids: dict[str | None, dict[str, int]] = {}
        # Ids of the module units, and of the units whose info has splits or a class: the
        # rest (most functions) add nothing in ``_follow``; set operations in C pick these.
        self._module_uids: set[int] = set()
        self._reading_uids: set[int] = set()
        # Of those, the units whose statements spell a name like a ``TOLD`` twin (a string
        # constant: never seen) (``_add_ran``).
        self._spells_told: set[int] = set()
        # The modules a test depends on -> (name, scope) -> its step: most tests of a
        # session depend on the same few sets of modules and read the same names.
        self._steps: dict[frozenset[str], dict[Pair, Step]] = {}
        self._binding_steps = BindingSteps(states, intern, self._split)
        self._bases: dict[tuple[frozenset[int], frozenset[str]], FollowedBase] = {}
        # A module -> the NAMES units of the names its ``from`` imports take from project
        # modules and its units of the modules they import (``_taken``).
        self._taken_ids: dict[str, frozenset[int]] = {}
        self.flags = PartsRead(False, False, False)  # what the last ``read`` found read

    def read(
        self,
        ids: frozenset[int],
        names: set[str],
        dynamic: bool,
        globals_read: Mapping[str, set[str]],
        whole: Set[str] = frozenset(),
        base: tuple[frozenset[int], frozenset[str]] | None = None,
    ) -> Set[int]:
        """The binding units of the modules ``ids`` depends on that the test reads: those
        of ``names`` and of the names its code read as globals (``globals_read``, by
        module), of the names the module units and those bindings read at import (closed
        over), of the classes they belong to; every unit of those modules when the test
        looked names up by string, and of the modules ``whole`` (where a class hook ran).
        The names read go in as ``NAMES`` units: those read only as a module's globals,
        one per module (``FileUnits.own_globals``); any name of a module read whole.

        ``base``: units and names among ``ids`` and ``names`` that many tests share (their
        file's imports). What they lead to is followed once and kept; each test follows
        only its own from there: the closure of a union is the union of the closures, as
        long as the test depends on no module the base does not. A test that does (it read
        what another test file's code left in a registry) follows from the base with those
        modules' units added, kept too: the tests reading that registry share them."""
        if not DOC_READS.isdisjoint(names):  # ``inspect.getdoc(mod)`` reads ``mod.__doc__``
            names = names | {MODULE_DOC}
        if base is not None and base[0] <= ids and base[1] <= names:
            known = self._followed_base(base)
            outside = self._outside_modules(ids - known.ids, known.paths)
            if outside:  # the base with the test's other modules: tests share those too
                known = self._followed_base((base[0] | outside, base[1]))
            return self._follow(ids, names, dynamic, globals_read, whole, known)[0]
        return self._follow(ids, names, dynamic, globals_read, whole, None)[0]

    def _followed_base(self, base: tuple[frozenset[int], frozenset[str]]) -> FollowedBase:
        known = self._bases.get(base)
        if known is None:
            known = self._bases[base] = self._base(*base)
        return known

    def _base(self, ids: frozenset[int], names: frozenset[str]) -> FollowedBase:
        found, reads, paths = self._follow(ids, names, False, {}, frozenset(), None)
        pairs = frozenset(reads.pairs())
        scoped: dict[str, list[int]] = {}
        for name, path in pairs:
            if path is not None and name not in reads.anywhere:
                scoped.setdefault(name, []).append(self._name_ids[module_read(name, path)])
        anywhere, kept = frozenset(reads.anywhere), {n: tuple(i) for n, i in scoped.items()}
        return FollowedBase(
            ids, names, frozenset(paths), frozenset(found), pairs, anywhere, reads.flags(), kept
        )

    def _outside_modules(self, ids: frozenset[int], paths: frozenset[str]) -> frozenset[int]:
        """The module units of ``ids`` that lie outside ``paths``."""
        infos = self._unit_infos
        for uid in ids.difference(infos):
            self._add_unit_info(uid)
        modules = self._module_uids.intersection(ids)
        return frozenset(uid for uid in modules if infos[uid].path not in paths)

    def _follow(
        self,
        ids: frozenset[int],
        names: Set[str],
        dynamic: bool,
        globals_read: Mapping[str, set[str]],
        whole: Set[str],
        base: FollowedBase | None,
    ) -> tuple[set[int], NamesRead, Set[str]]:
        """``read``, from nothing or from ``base`` (then only the units and names not in
        it are followed, and its modules are the test's); with what was read, and the
        modules. The base is followed with no module ``whole``: each test adds its own."""
        infos = self._unit_infos
        if base is not None:
            ids, names = ids - base.ids, names - base.names
        for uid in ids.difference(infos):
            self._add_unit_info(uid)
        reading = self._reading_uids.intersection(ids)
        ran = list(map(infos.__getitem__, reading))
        if base is not None:
            paths: Set[str] = base.paths
        else:
            paths = {infos[uid].path for uid in self._module_uids.intersection(ids)}
        # A lookup by string finds every unit of the modules but the bodies (rts.lookups).
        by_string = self._string_units.of_modules(paths) if dynamic else frozenset()
        found: set[int] = set(by_string)
        reads = NamesRead(set(names), {path: set(read) for path, read in globals_read.items()})
        for path in paths if base is None else ():  # else in the base's reads already
            file_units = self.states.units(path)
            if file_units is not None:
                found |= self._read_module(path, file_units, reads)
        if not dynamic:
            found |= self._whole_modules(whole)
            # ``getattr(self, name)``: the class attributes whose names start with a prefix
            # (in a module read whole, a part of what it found already).
            for prefix in attribute_prefixes(names):
                found |= self._string_units.of_modules(paths, prefix)
        self._add_ran(ran, paths, reads, found, self._spells_told.isdisjoint(reading))
        closed, done = self._close(reads, paths, base.pairs if base is not None else frozenset())
        found |= closed
        found |= self._close_noted(found, reads, paths, base, done)
        # Names read only as a module's globals are one unit per module, unless read
        # anywhere too (also in the base, or by this test when the base read it so).
        anywhere = reads.anywhere if base is None else reads.anywhere - base.anywhere
        everywhere = anywhere if base is None else anywhere | base.anywhere
        found.update(self._names_ids(anywhere, None))
        for path, read in reads.by_module.items():
            found.update(self._names_ids(read - everywhere, path))
        if dynamic:
            found.add(self._intern(Unit(NAMES, EVERY_NAME)))
        # Every name read was followed: those of the bindings found are in ``reads`` too.
        self._add_found(found, paths, reads.flags(), base, anywhere)
        return found, reads, paths

    def _whole_modules(self, whole: Set[str]) -> set[int]:
        """What a lookup by string finds in the modules read ``whole`` (where a class hook
        ran, whose globals code looked up), and the ``NAMES`` unit that selects the test
        once a new name is bound there. Not only among the test's modules: a told frame's
        module may be one none of whose code the tracer saw (``rts.frame_namespaces``: code
        made from its source)."""
        found: set[int] = set()
        for path in whole:
            if (file_units := self.states.units(path)) is not None:
                found |= self._string_units.of_module(path, file_units)
                found.add(self._intern(Unit(NAMES, module_read(EVERY_NAME, path))))
        return found

    @staticmethod
    def _add_ran(
        ran: list[UnitInfo], paths: Set[str], reads: NamesRead, found: set[int], once: bool
    ) -> None:
        """What ran: the classes and bindings it belongs to, of the modules ``paths``. The
        methods of a class all add their class's statement: with ``once`` (no statement
        among them spells a ``TOLD`` twin: ``_spells_told``), each distinct statement is
        added once, in the order first met; adding one again would change nothing (its
        ``NamesRead.add`` drops only ``TOLD`` twins, and only a statement could add one)."""
        inside = [info for info in ran if info.path in paths]
        splits: Iterable[tuple[str, tuple[frozenset[str], ...]]]
        if once:
            splits = dict.fromkeys((info.path, split) for info in inside for split in info.splits)
        else:
            splits = [(info.path, split) for info in inside for split in info.splits]
        for path, split in splits:
            reads.add(path, split)
        found.update(info.owner for info in inside if info.owner >= 0)

    def _add_found(
        self,
        found: set[int],
        paths: Set[str],
        flags: PartsRead,
        base: FollowedBase | None,
        anywhere: Set[str],
    ) -> None:
        """The bodies, default values and docstrings (``SeenBodies.add``: ``flags`` says which
        parts the test read) of what ``found`` holds; from a ``base``, what it found too,
        less its module-global ``NAMES`` units of the names the test read ``anywhere``."""
        flags = self.flags = flags if base is None else flags.union(base.flags)
        self._bodies.add(found, paths, flags)
        if base is None:
            return
        found |= base.found
        for name in anywhere & base.scoped.keys():
            found.difference_update(base.scoped[name])
        if flags != base.flags:  # the base's functions' parts with this test's reads
            self._bodies.add_beside(found, base.found, base.paths, flags)

    def _close(
        self,
        reads: NamesRead,
        paths: Set[str],
        followed: Set[Pair],
        done: Set[Pair] = frozenset(),
        start: set[Pair] | None = None,
    ) -> tuple[set[int], set[Pair]]:
        """The binding units the names ``reads`` holds lead to in ``paths``, closed over
        what their statements read (added to ``reads``), and the pairs followed; pairs in
        ``followed`` (the base's) and ``done`` (an earlier round's) were followed already;
        ``start``: the only pairs that may be new. Only a name some module binds leads
        anywhere: most names read are attributes'."""
        found: set[int] = set()
        steps = self._steps.setdefault(frozenset(paths), {})
        start = reads.scoped(self._binding_steps.bound_names) if start is None else start
        pending = start - followed - done
        seen = set(pending)
        # Breadth first, one round per level of the closure, the per-pair work in C (map
        # and union over the cached steps): a test follows hundreds of pairs.
        while pending:
            for pair in pending.difference(steps):
                steps[pair] = self._binding_steps.step(pair, paths)
            taken = list(map(steps.__getitem__, pending))
            found.update(*map(itemgetter(0), taken))  # a copy per round: a third of the loop
            pending = set().union(*map(itemgetter(1), taken)).difference(seen, followed, done)
            seen |= pending
        reads.follow(seen)
        return found, seen

    def _close_noted(
        self,
        found: set[int],
        reads: NamesRead,
        paths: Set[str],
        base: FollowedBase | None,
        done: set[Pair],
    ) -> set[int]:
        """For a test that read signatures or code, what the names only the dunders'
        annotations of the classes found read lead to (``FileUnits.noted``): the
        annotations hold what those names are bound to, and reading them shows it. Else
        those of the classes its modules hand to library code at import (as
        ``SeenBodies`` shows their held parts), and from there any class's. ``done``: the
        pairs the test's closure followed (grown here)."""
        flags = reads.flags() if base is None else reads.flags().union(base.flags)
        handed = None if flags.signatures or flags.code else self._bodies.handed(paths)
        if handed is not None and not handed:
            return set()
        followed = base.pairs if base is not None else frozenset()
        added: set[int] = set()
        noted = self._noted.among(found, handed)  # the base's kept apart: no union per test
        if base is not None:
            noted += self._noted.among_kept(base.found, handed)
        while noted:
            for path, names in noted:
                reads.add(path, names)
            # Only the pairs of the names just added: the others were followed (``done``,
            # the base's), what they find is known (``add`` brings no ``TOLD`` twin).
            bound = self._binding_steps.bound_names
            fresh = set().union(*(split_pairs(p, n, bound) for p, n in noted))
            closed, seen = self._close(reads, paths, followed, done, fresh)
            todo = closed - found - added
            added |= todo
            done |= seen
            noted = self._noted.among(todo, None) if todo else []
        return added

    def _read_module(self, path: str, file_units: FileUnits, reads: NamesRead) -> frozenset[int]:
        """Index ``path``'s bindings and add what its module unit reads to ``reads``; the
        ``NAMES`` units of the names its imports take (``_taken``)."""
        self._binding_steps.index(path, file_units)
        reads.add(path, self._split(file_units, MODULE))
        return self._taken(path, file_units)

    def _taken(self, path: str, file_units: FileUnits) -> frozenset[int]:
        """The ids of what ``path``'s imports take (``from_import_reads.taken_by_imports``)."""
        cached = self._taken_ids.get(path)
        if cached is None:
            keys, importing = taken_by_imports(path, file_units, self.resolver, self.states)
            cached = frozenset(map(self._name_id, keys)).union(map(self._intern, importing))
            self._taken_ids[path] = cached
        return cached

    def _names_ids(self, names: set[str], path: str | None) -> Iterator[int]:
        """The ids of the ``NAMES`` units of ``names`` read anywhere (``path`` None) or
        only as the globals of module ``path``."""
        ids = self._scoped_ids.setdefault(path, {})
        for name in names.difference(ids):
            ids[name] = self._name_id(name if path is None else module_read(name, path))
        return map(ids.__getitem__, names)

    def _name_id(self, key: str) -> int:
        """The id of the ``NAMES`` unit ``key``."""
        name_id = self._name_ids.get(key)
        if name_id is None:  # a twin read as a base is a read of its name
            name_id = self._name_ids[key] = self._intern(Unit(NAMES, read_name(key)))
        return name_id

    def _add_unit_info(self, uid: int) -> UnitInfo:
        unit = self._units[uid]
        splits: list[tuple[frozenset[str], ...]] = []
        owner_id = -1
        file_units = self.states.units(unit.path)
        if file_units is not None:
            splits.append(self._split(file_units, unit.name))
            owner = file_units.class_of(unit)
            if owner is not None:
                owner_id = self._intern(owner)
                splits.append(self._split(file_units, owner.name))
        # Most units that run (functions) read nothing at import: no split to add per test.
        splits = [split for split in splits if any(split)]
        info = UnitInfo(unit.path, unit.name == MODULE, tuple(splits), owner_id)
        if any(name.startswith(TOLD) for split in splits for part in split for name in part):
            self._spells_told.add(uid)
        self._unit_infos[uid] = info
        if info.is_module:
            self._module_uids.add(uid)
        if info.splits or owner_id >= 0:
            self._reading_uids.add(uid)
        return info

    def _split(self, file_units: FileUnits, unit_name: str) -> tuple[frozenset[str], ...]:
        """(read anywhere, read only as the module's globals) of the names the statement of
        ``unit_name`` (the residue for the module unit) reads at import."""
        key = (file_units.path, unit_name)
        cached = self._splits.get(key)
        if cached is None:
            imported = from_import_split(file_units, unit_name, self.resolver, self.states)
            if imported is not None:
                cached = self._splits[key] = imported if any(imported) else NO_SPLIT
                return cached
            refs = (
                unproved_reads(file_units, self.resolver, self.states)  # ``rts.callee_classes``
                if unit_name == MODULE
                else file_units.refs.get(unit_name, frozenset())
            )
            if file_units.subclassed or spells_twin(refs):  # ``rts.subclassing``
                cached = self._splits[key] = twin_split(file_units, unit_name, refs, self._plain)
                return cached
            own = file_units.own_globals(refs)
            cached = self._splits[key] = (refs - own, own) if refs else NO_SPLIT
        return cached
