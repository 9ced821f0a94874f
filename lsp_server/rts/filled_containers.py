"""Values earlier tests left in a module-level dict, set or list, or bound to a module's
global or a class's attribute, read by later tests.

A cache filled on first use (``_CACHE = {}``; ``if k not in _CACHE: _CACHE[k] = slow(k)``)
carries a value from the test that computed it to every later test that only reads it:
that test never runs ``slow``, yet in a full run after ``slow`` changed it reads the new
value. So a test that read an entry an earlier test had changed depends on what ran in the
tests that changed it (each changed it while it ran: a superset of the code computing the
value), and so on down the chain (what it ran includes what it read).

Which entries a test changed is found by comparing each container before and after the
test (by identity of keys and values: a dict entry rebound, a set element added or dropped,
a list changed as a whole, the name rebound to another object); a dict is copied and
compared only when its version tag moved (``rts.dict_versions``). Which entries it read, from
the code it ran (``rts.container_reads``): a keyed read counts for its key only, any other
use of the container's name for every entry. Keeping it per entry keeps it precise where a
registry grows in most tests (marshmallow's class registry: a test reads the entries of the
class names it defines and registers). A read that only asks whether an entry is there
(``k in d``) depends only on the tests that added or dropped it: marshmallow's ``if fullpath
not in _registry`` runs in every test defining a schema, and most of them rebind that entry.

The same holds for a name an earlier test rebound and left so (``global _MODE; _MODE =
choose()``, ``cls.mode = ...``, a lazily built ``_lexer``): what each test rebound is found by
comparing the namespaces of the project's modules and classes before and after it (a
``monkeypatch`` undone at teardown leaves nothing), and a later test whose code names it
(``co_names``, or a string constant ``getattr(obj, "mode")`` spells) depends on what ran in
the tests that rebound it.

The containers are the dicts, sets and lists bound at the top level of the project's modules
or in the bodies of its classes (not those of test files: a ``setUpClass`` setting
``cls.db`` would tie every test of the class to the first one, marshmallow's test files
define hundreds of schema classes to compare around every test, and toolz's hold a list of a
million items), looked for again whenever more modules are loaded. Values put there while
modules are imported or test files collected are not attributed (import footprints and
collection windows hold that code). Containers held by a module-level object of a project
class (``self._cache``) are watched too (``rts.held_containers``), not those of other
objects: README, Limits. A function of the module holding a container as a default value
(``def f(k, cache=_CACHE)``) reads every entry of it whenever it runs. A size or presence
read depends on what ran up to the filler's last store (``container_sizes``). Once more
containers are filled, the code every test ran so far is analysed against them and watched
for its keys (``rts.keyed_reads``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import CodeType
from typing import Any

from lsp_server.rts.container_reads import (
    DELETE_COMPUTED,
    EVERY,
    SIZE,
    ContainerReads,
    container_reads,
    defaults_held,
)
from lsp_server.rts.container_sizes import ran_after, ran_before
from lsp_server.rts.container_slots import (
    KINDS,
    WHOLE,
    Slot,
    changed_entries,
    changed_keys,
    presence_changed,
    start_keys,
)
from lsp_server.rts.dict_versions import DictSnapshot, SnapshotGroup
from lsp_server.rts.held_containers import container_holders
from lsp_server.rts.identity import identity
from lsp_server.rts.keyed_reads import KeyedReads
from lsp_server.rts.lazy_builds import LazyBuilds
from lsp_server.rts.module_rebinds import ModuleRebinds, Reach
from lsp_server.rts.new_keys import new_keys
from lsp_server.rts.plain_values import function_of, is_kind
from lsp_server.rts.project_modules import NewProjectModules, hooks_unheard
from lsp_server.rts.rebound_names import bound_by_import, imported_names, names_spelled
from lsp_server.rts.tracing import CodeSet, RanSoFar

_MISSING = object()


@dataclass
class _Namespace:
    """The names bound in a module or a class, as the test found them (``before``)."""

    owner: object
    names: Mapping[str, Any]
    before: DictSnapshot


class FilledContainers:
    """Per test: ``before`` when it starts, ``after`` with what it ran when it ends."""

    def __init__(
        self,
        is_project_file: Callable[[str], bool],
        is_test_file: Callable[[str], bool],
        ran_so_far: Callable[[], RanSoFar | None] | None = None,
        builds: LazyBuilds | None = None,
    ) -> None:
        self._is_test_file = is_test_file
        self._builds = builds  # objects built on first use: ``rts.lazy_builds``
        self._modules = NewProjectModules(is_project_file)
        self._is_project_file = is_project_file
        self._project_files: dict[str, bool] = {}
        self._namespaces: list[_Namespace] = []
        self._namespace_tags = SnapshotGroup()  # their ``before``s, in the same order
        self._rebound: dict[str, CodeSet] = {}  # name -> what ran in the tests rebinding it
        self._in_modules = ModuleRebinds()  # a module's globals: by module (module_rebinds)
        # Names only ever rebound by the import system binding a submodule on its package.
        self._submodules: set[str] = set()
        # By identity(code): the names of ``_rebound`` it reads (only code reading any), and
        # every code looked at, as of the version of those two tables (most code reads none).
        self._rebound_reads: dict[int, frozenset[str]] = {}
        self._rebound_checked: set[int] = set()
        self._rebound_version = self._rebound_seen = 0
        self._imports: dict[int, frozenset[str]] = {}  # by identity(code): ``imported_names``
        self._spelled: dict[int, frozenset[str]] = {}  # by identity(code): names it spells
        self._slots: list[Slot] = []
        # (identity(owner), name) of each slot -> the owner, kept: a dead one's identity
        self._slot_of: dict[tuple[int, str], object] = {}  # can be a new one's, unwatched
        self._fillers: dict[int, dict[Any, CodeSet]] = {}  # slot index -> entry -> codes
        self._presence: dict[int, dict[Any, CodeSet]] = {}  # of entries added or dropped
        self._sized: dict[int, CodeSet] = {}  # slot index -> all of its ``_presence``
        # What the test first ran after its last store, by container id (container_sizes).
        self._later: dict[int, set[int]] = {}
        self._unsure: set[str] = set()
        self._filled_names: set[str] = set()
        self._version = self._watched = 0  # of ``_filled_names``: code analysed, watched
        self._ran: CodeSet = {}  # every code the tests ran
        # By identity(code), as of ``_analysed`` (a ``_version``): what the code reads of
        # the filled containers (None: nothing), and apart the code that reads any, which
        # set operations pick out of what a test ran (most code reads none of them).
        self._analysis: dict[int, ContainerReads | None] = {}
        self._reading: dict[int, ContainerReads] = {}
        self._analysed = 0
        # By identity(code): the containers its function holds as default values, by name.
        self._defaults: dict[int, set[str]] = {}
        self.keyed = KeyedReads(ran_so_far) if ran_so_far is not None else KeyedReads()

    def before(self) -> None:
        with hooks_unheard():  # a value's hooks may warn: ``project_modules``
            self._find()
        if self._builds is not None:
            self._builds.before()
        for slot in self._slots:
            value = slot.namespace.get(slot.name, _MISSING)
            if value is not slot.value and is_kind(value, KINDS):
                slot.value = value  # rebound between tests: the new object from now on
                slot.holding = None
            slot.start()
        self._namespace_tags.take()
        self.keyed.take()
        self.keyed.take_stores()
        self._later, self._unsure = {}, set()

    def ended(self) -> None:
        """The test's code ran: what it ran after its last stores, before more is merged."""
        stored, self._unsure = self.keyed.take_stores()
        self._later = {key: ran_after(so_far) for key, so_far in stored.items()}

    def after(self, codes: CodeSet) -> Reach:
        """Add to ``codes`` (what the test ran) what ran in the tests that changed the
        entries it read; remember what it ran for the entries it changed. What rebound
        the globals it read of modules it may not reach comes back by module file
        (``module_rebinds.reaching`` adds those it reaches)."""
        keys, everything = self.keyed.take()
        found, reach = self._rebound_read(codes)
        changers = self._unsure  # names of containers changed other than by a watched store
        if self._fillers:
            for code, reads in self._readers(codes):
                everything |= reads.everything
                changers |= reads.everything | reads.changes
                keys.update((name, 0, key, presence) for name, key, presence in reads.constant)
                if not self.keyed.watched(code):  # it ran before its keys were watched
                    everything.update(site[0] for site in reads.sites.values())
                    changers.update(name for name, _ in reads.stores.values())
                    changers.update(s[0] for s in reads.sites.values() if s[1] == DELETE_COMPUTED)
            for key in self._defaults.keys() & codes.keys():
                everything |= self._defaults[key]
            for index, fillers in self._fillers.items():
                entries = (fillers, self._presence.get(index, {}), self._sized.get(index, {}))
                self._add_read(self._slots[index], entries, keys, everything, found)
        # What this test read, for the tests that read what it changes: the whole reach,
        # as when rebinds were kept by name alone (what it changed may carry any of it).
        read = found.copy()
        for reached in reach.values():
            read.update(reached)
        self._changes_of_containers(codes, read, changers)
        self._changes_of_names(codes, read)
        codes.update(found)
        self._later, self._unsure = {}, set()
        self._ran.update(codes)
        if self._fillers:  # newly filled containers: what earlier tests ran is watched again
            ran = codes if self._watched == self._version else self._ran
            for code, reads in self._readers(ran):
                self.keyed.watch(code, reads)
            self._watched = self._version
        return reach

    def _changes_of_containers(self, codes: CodeSet, found: CodeSet, changers: set[str]) -> None:
        """Remember what the test ran and read for the entries of containers it changed."""
        for index, slot in enumerate(self._slots):
            changed = changed_entries(slot)
            if not changed:
                continue
            fillers = self._fillers.setdefault(index, {})
            for key in changed:
                fillers.setdefault(key, {}).update(codes)
                fillers[key].update(found)
            presence = self._presence.setdefault(index, {})
            added_or_dropped = presence_changed(slot, changed)
            # What decided the entries there (``container_sizes``): what ran to the last store.
            whole = slot.entries is None or WHOLE in changed or slot.name in changers
            deciding = ran_before(codes, None if whole else self._later.get(identity(slot.value)))
            if added_or_dropped:
                self._sized.setdefault(index, {}).update(deciding)
                self._sized[index].update(found)
            for key in added_or_dropped:
                presence.setdefault(key, {}).update(deciding)
                presence[key].update(found)
            if slot.name not in self._filled_names:
                self._filled_names.add(slot.name)
                self._version += 1

    def _changes_of_names(self, codes: CodeSet, found: CodeSet) -> None:
        """Remember what the test ran and read for the names it rebound."""
        for place in self._namespace_tags.changed():
            namespace = self._namespaces[place]
            for name in changed_keys(namespace.before.entries, namespace.names):
                submodule = bound_by_import(namespace.owner, name, namespace.names.get(name))
                if submodule and name not in self._rebound.keys() | self._in_modules.by_name:
                    self._submodules.add(name)
                elif not submodule:
                    self._submodules.discard(name)
                share = codes
                if self._builds is not None:
                    share = self._builds.share(namespace.owner, name, codes)
                file = self._in_modules.file_of(namespace.owner)
                if file is not None:
                    self._in_modules.add(name, file, {**share, **found})
                else:
                    self._rebound.setdefault(name, {}).update(share)
                    self._rebound[name].update(found)
                self._rebound_version += 1
        changed = self._builds.changed(codes) if self._builds is not None else {}
        for name, share in changed.items():
            self._rebound.setdefault(name, {}).update(share)
            self._rebound[name].update(found)
            self._rebound_version += 1

    def stop(self) -> None:
        self.keyed.stop()
        if self._builds is not None:
            self._builds.stop()

    def _rebound_read(self, codes: CodeSet) -> tuple[CodeSet, Reach]:
        """What ran in the tests that rebound the names ``codes`` read: as class attributes
        or lazily built, and as module globals (by module file)."""
        found: CodeSet = {}
        reach: Reach = {}
        rebound = self._rebound.keys() | self._in_modules.by_name.keys()
        if not rebound:
            return found, reach
        if self._rebound_seen != self._rebound_version:
            self._rebound_reads.clear()
            self._rebound_checked.clear()
            self._rebound_seen = self._rebound_version
        reads, checked, spelled = self._rebound_reads, self._rebound_checked, self._spelled
        for key in codes.keys() - checked:
            checked.add(key)
            names = spelled.get(key)
            if names is None:
                names = spelled[key] = self._reads_of_project(codes[key])
            read = names & rebound
            if read & self._submodules:
                imported = self._imports.get(key)
                if imported is None:
                    imported = self._imports[key] = imported_names(codes[key])
                read -= imported & self._submodules
            if read:
                reads[key] = read
        for key in codes.keys() & reads.keys():
            for name in reads[key]:
                found.update(self._rebound.get(name, {}))
                self._in_modules.read(name, reach)
        return found, reach

    def _add_read(
        self,
        slot: Slot,
        fillers: tuple[dict[Any, CodeSet], dict[Any, CodeSet], CodeSet],
        keys: set[tuple[str, int, Any, bool]],
        everything: set[str],
        found: CodeSet,
    ) -> None:
        """Add to ``found`` what filled the entries of ``slot`` that the test read: a keyed
        read or a use of every entry names the container's id where the frame told it (0
        where not); ``fillers``:
        what changed each entry, what added or dropped it (read by presence reads), and
        all of the latter (read by a size read)."""
        name, own = slot.name, identity(slot.value)
        values, presence, sized = fillers
        read = [(k, only) for n, where, k, only in keys if n == name and where in (0, own)]
        # By name, or by a use that loaded this very object (``EVERY``: another object
        # held under the same attribute name is not read).
        if name in everything or any(key is EVERY for key, _ in read):
            # Any entry there when the test started may be read; one missing then shows
            # only that it is missing: what added or dropped it (all in ``sized``).
            there = start_keys(slot)
            for key in values.keys() if there is None else values.keys() & there:
                found.update(values[key])
            found.update(values.get(WHOLE, {}))
            found.update(sized)
            return
        whole = values.get(WHOLE)
        if whole is not None and read:
            found.update(whole)
        for key, only_presence in read:
            if key is SIZE:
                found.update(sized)
                continue
            entries = presence if only_presence else values
            try:
                codes = entries.get(key)
            except TypeError:  # a key that cannot be hashed: every entry
                codes = {c: v for entry in values.values() for c, v in entry.items()}
            if codes is not None:
                found.update(codes)

    def _is_project_code(self, code: CodeType) -> bool:
        """Only the project's code counts as reading (the profile hook of 3.10/3.11 records
        library code too; sys.monitoring never sees it)."""
        found = self._project_files.get(code.co_filename)
        if found is None:
            found = self._project_files[code.co_filename] = self._is_project_file(code.co_filename)
        return found

    def _reads_of_project(self, code: CodeType) -> frozenset[str]:
        return names_spelled(code) if self._is_project_code(code) else frozenset()

    def _readers(self, codes: CodeSet) -> list[tuple[CodeType, ContainerReads]]:
        """The code of ``codes`` that reads filled containers, with what it reads."""
        if self._analysed != self._version:  # more names filled: analysed again
            self._analysis.clear()
            self._reading.clear()
            self._analysed = self._version
        analysis = self._analysis
        for key in new_keys(codes, analysis):
            code = codes[key]
            reads = None
            if self._is_project_code(code):
                reads = container_reads(code, self._filled_names)
            analysis[key] = reads
            if reads is not None:
                self._reading[key] = reads
        return [(codes[key], self._reading[key]) for key in codes.keys() & self._reading.keys()]

    def _find(self) -> None:
        for module in self._modules.take():
            # A test file's containers and classes are not watched: toolz's benchmark tests
            # hold a list of 1.1 million items, compared around every test (recording 6x
            # slower); a rebound global of a test file still is.
            test_file = self._is_test_file(module.__file__ or "")
            self._take(module, watched=not test_file)
            if test_file:
                continue
            for value in list(vars(module).values()):
                if is_kind(value, type) and vars(value).get("__module__") == module.__name__:
                    self._take(value)
            for holder in container_holders(module, self._is_project_file):
                self._take_containers(holder, vars(holder))  # its names: no module's

    def _take(self, owner: object, watched: bool = True) -> None:
        """The names bound in the namespace of ``owner`` (a module or a class, kept alive by
        its module), and its containers unless ``watched`` is false."""
        namespace = vars(owner)
        self._namespaces.append(_Namespace(owner, namespace, DictSnapshot(namespace)))
        self._namespace_tags.add(self._namespaces[-1].before)
        if self._builds is not None and watched:
            self._builds.take(owner, namespace)
        if watched:
            self._take_containers(owner, namespace)

    def _take_containers(self, owner: object, namespace: Mapping[str, Any]) -> None:
        """The containers bound in ``namespace``, the attributes of ``owner``."""
        containers = {identity(v): n for n, v in namespace.items() if is_kind(v, KINDS)}
        for name, value in list(namespace.items()):
            for code_id, held in defaults_held(function_of(value), containers):
                self._defaults.setdefault(code_id, set()).add(held)
            if not is_kind(value, KINDS) or name.startswith("__"):
                continue
            if (identity(owner), name) in self._slot_of:
                continue
            self._slot_of[(identity(owner), name)] = owner
            slot = Slot(namespace, name, value)
            slot.start()
            self._slots.append(slot)
