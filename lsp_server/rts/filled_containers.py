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

The containers are the dicts, sets and lists bound at the top level of the project's
modules or in the bodies of its classes (not those of test files: a ``setUpClass`` setting
``cls.db`` would tie every test of the class to the first one, marshmallow's test files
define hundreds of schema classes to compare around every test, and toolz's hold a list of
a million items), looked for again
whenever more modules are loaded. Values put there while modules are imported or test
files collected are not attributed (import footprints and collection windows hold that
code); nor are containers held by instances (``self._cache`` of a module-level object):
README, Limits. A function of the
module holding a container as a default value (``def f(k, cache=_CACHE)``) reads every entry
of it whenever it runs: its code never names the container.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import CodeType
from typing import Any

from lsp_server.rts.container_reads import ContainerReads, KeyedReads, container_reads
from lsp_server.rts.dict_versions import DictSnapshot, same
from lsp_server.rts.identity import identity
from lsp_server.rts.project_modules import NewProjectModules
from lsp_server.rts.rebound_names import bound_by_import, imported_names, names_spelled
from lsp_server.rts.tracing import CodeSet

WHOLE = ("<whole container>",)  # an entry standing for all of a container
_MISSING = object()
_KINDS = (dict, set, list)


@dataclass
class _Namespace:
    """The names bound in a module or a class, as the test found them (``before``)."""

    owner: object
    names: Mapping[str, Any]
    before: DictSnapshot


def _changed_keys(before: dict[Any, Any], now: Mapping[Any, Any]) -> set[Any]:
    """The keys bound to another object (or added, or dropped), by identity (``same``:
    ``before`` may hold values weakly)."""
    if (
        len(before) == len(now)
        and all(map(operator.is_, before, now))
        and all(map(same, before.values(), now.values()))
    ):
        return set()
    changed = {key for key, value in now.items() if not same(before.get(key, _MISSING), value)}
    return changed | (before.keys() - now.keys())


@dataclass
class _Slot:
    """A name bound to a container: in a module's or a class's namespace."""

    namespace: Mapping[str, Any]
    name: str
    value: Any
    before: Any = None  # of a set or a list: a copy of ``value`` at the start of the test
    entries: DictSnapshot | None = None  # of a dict: its entries at the start of the test
    # Of a dict: which entries hold a dict, set or list (looked for again only when an
    # entry changed), and their sizes at the start of the test (a registry's lists grow).
    holding: tuple[list[Any], list[Any]] | None = None
    sizes: list[int] | None = None

    def start(self) -> None:
        value = self.value
        if not isinstance(value, dict):
            self.before, self.entries = _copy(value), None
            return
        if self.entries is None or self.entries.mapping is not value:
            self.entries = DictSnapshot(value, weak=True)
        self.entries.take()
        if self.holding is None:
            held = [(k, v) for k, v in value.items() if isinstance(v, _KINDS)]
            self.holding = ([k for k, _ in held], [v for _, v in held])
        self.sizes = list(map(len, self.holding[1]))


def _copy(value: Any) -> Any:
    return set(value) if isinstance(value, set) else list(value)


def _grown(slot: _Slot) -> set[Any]:
    """The entries of a dict's slot holding a container whose size changed (one rebound to
    another object is among the changed entries)."""
    keys, values = slot.holding or ([], [])
    sizes = list(map(len, values))
    if sizes == slot.sizes:
        return set()
    return {
        key for key, now, then in zip(keys, sizes, slot.sizes or (), strict=True) if now != then
    }


def _presence_changed(slot: _Slot, changed: set[Any]) -> set[Any]:
    """Of the ``changed`` entries of ``slot``, those the test added or dropped."""
    before = slot.entries.entries if slot.entries is not None else slot.before
    if not isinstance(before, dict) or WHOLE in changed:
        return changed
    now = slot.namespace.get(slot.name, _MISSING)
    return {key for key in changed if (key in before) != (key in now)}


def _changed(slot: _Slot) -> set[Any]:
    """The entries of ``slot`` that the test changed (``WHOLE``: the container itself)."""
    now = slot.namespace.get(slot.name, _MISSING)
    if now is not slot.value:
        slot.holding = None
        return {WHOLE}
    if slot.entries is not None:
        grown = _grown(slot)
        if slot.entries.unchanged():
            return grown
        changed = _changed_keys(slot.entries.entries, now)
        if changed:
            slot.holding = None  # entries rebound: which hold containers, looked for again
        return changed | grown
    before = slot.before
    if isinstance(before, set):
        if len(before) == len(now) and before == now:
            return set()
        return (now - before) | (before - now)
    same = len(before) == len(now) and all(map(operator.is_, before, now))
    return set() if same else {WHOLE}


class FilledContainers:
    """Per test: ``before`` when it starts, ``after`` with what it ran when it ends."""

    def __init__(
        self, is_project_file: Callable[[str], bool], is_test_file: Callable[[str], bool]
    ) -> None:
        self._is_test_file = is_test_file
        self._modules = NewProjectModules(is_project_file)
        self._is_project_file = is_project_file
        self._project_files: dict[str, bool] = {}
        self._namespaces: list[_Namespace] = []
        self._rebound: dict[str, CodeSet] = {}  # name -> what ran in the tests rebinding it
        # Names only ever rebound by the import system binding a submodule on its package.
        self._submodules: set[str] = set()
        self._imports: dict[int, frozenset[str]] = {}  # by identity(code): ``imported_names``
        self._spelled: dict[int, frozenset[str]] = {}  # by identity(code): names it spells
        self._slots: list[_Slot] = []
        self._slot_of: set[tuple[int, str]] = set()  # (identity(owner), name) of each slot
        self._fillers: dict[int, dict[Any, CodeSet]] = {}  # slot index -> entry -> codes
        self._presence: dict[int, dict[Any, CodeSet]] = {}  # of entries added or dropped
        self._filled_names: set[str] = set()
        self._version = 0  # of ``_filled_names``: the code analysed against it
        self._analysis: dict[int, tuple[int, ContainerReads | None]] = {}
        # By identity(code): the containers its function holds as default values, by name.
        self._defaults: dict[int, set[str]] = {}
        self.keyed = KeyedReads()

    def before(self) -> None:
        self._find()
        for slot in self._slots:
            value = slot.namespace.get(slot.name, _MISSING)
            if value is not slot.value and isinstance(value, _KINDS):
                slot.value = value  # rebound between tests: the new object from now on
                slot.holding = None
            slot.start()
        for namespace in self._namespaces:
            namespace.before.take()
        self.keyed.take()

    def after(self, codes: CodeSet) -> None:
        """Add to ``codes`` (what the test ran) what ran in the tests that changed the
        entries it read; remember what it ran for the entries it changed."""
        keys, everything = self.keyed.take()
        found = self._rebound_read(codes)
        if self._fillers:
            for code in codes.values():
                reads = self._reads(code)
                if reads is None:
                    continue
                everything |= reads.everything
                keys.update((name, 0, key, presence) for name, key, presence in reads.constant)
                if not self.keyed.watched(code):  # it ran before its keys were watched
                    everything.update(site[0] for site in reads.sites.values())
            for key in self._defaults.keys() & codes.keys():
                everything |= self._defaults[key]
            for index, fillers in self._fillers.items():
                presence = self._presence.get(index, {})
                self._add_read(self._slots[index], (fillers, presence), keys, everything, found)
        for index, slot in enumerate(self._slots):
            changed = _changed(slot)
            if not changed:
                continue
            fillers = self._fillers.setdefault(index, {})
            for key in changed:
                fillers.setdefault(key, {}).update(codes)
                fillers[key].update(found)
            presence = self._presence.setdefault(index, {})
            for key in _presence_changed(slot, changed):
                presence.setdefault(key, {}).update(codes)
                presence[key].update(found)
            if slot.name not in self._filled_names:
                self._filled_names.add(slot.name)
                self._version += 1
        for namespace in self._namespaces:
            if namespace.before.unchanged():
                continue
            for name in _changed_keys(namespace.before.entries, namespace.names):
                submodule = bound_by_import(namespace.owner, name, namespace.names.get(name))
                if submodule and name not in self._rebound:
                    self._submodules.add(name)
                elif not submodule:
                    self._submodules.discard(name)
                self._rebound.setdefault(name, {}).update(codes)
                self._rebound[name].update(found)
        codes.update(found)
        if self._fillers:
            for code in codes.values():
                reads = self._reads(code)
                if reads is not None and reads.sites:
                    self.keyed.watch(code, reads)

    def stop(self) -> None:
        self.keyed.stop()

    def _rebound_read(self, codes: CodeSet) -> CodeSet:
        """What ran in the tests that rebound the names ``codes`` read."""
        found: CodeSet = {}
        rebound = self._rebound
        if not rebound:
            return found
        spelled = self._spelled
        for key, code in codes.items():
            names = spelled.get(key)
            if names is None:
                names = spelled[key] = self._reads_of_project(code)
            read = names & rebound.keys()
            if read & self._submodules:
                imported = self._imports.get(key)
                if imported is None:
                    imported = self._imports[key] = imported_names(code)
                read -= imported & self._submodules
            for name in read:
                found.update(rebound[name])
        return found

    def _add_read(
        self,
        slot: _Slot,
        fillers: tuple[dict[Any, CodeSet], dict[Any, CodeSet]],
        keys: set[tuple[str, int, Any, bool]],
        everything: set[str],
        found: CodeSet,
    ) -> None:
        """Add to ``found`` what filled the entries of ``slot`` that the test read: a keyed
        read names the container's id where the frame told it (0 where not); ``fillers``:
        what changed each entry, and what added or dropped it (read by presence reads)."""
        name, own = slot.name, identity(slot.value)
        values, presence = fillers
        if name in everything:
            for filled in values.values():
                found.update(filled)
            return
        whole = values.get(WHOLE)
        read = [(k, only) for n, where, k, only in keys if n == name and where in (0, own)]
        if whole is not None and read:
            found.update(whole)
        for key, only_presence in read:
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

    def _reads(self, code: CodeType) -> ContainerReads | None:
        known = self._analysis.get(identity(code))
        if known is not None and known[0] == self._version:
            return known[1]
        if not self._is_project_code(code):
            self._analysis[identity(code)] = (self._version, None)
            return None
        reads = container_reads(code, self._filled_names)
        self._analysis[identity(code)] = (self._version, reads)
        return reads

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
                if isinstance(value, type) and value.__module__ == module.__name__:
                    self._take(value)

    def _take_defaults(self, function: object, containers: dict[int, str]) -> None:
        code = getattr(function, "__code__", None)
        if type(code) is not CodeType:
            return
        defaults = getattr(function, "__defaults__", None) or ()
        keyword = getattr(function, "__kwdefaults__", None) or {}
        for value in (*defaults, *keyword.values()):
            name = containers.get(identity(value))
            if name is not None:
                self._defaults.setdefault(identity(code), set()).add(name)

    def _take(self, owner: object, watched: bool = True) -> None:
        """The names bound in the namespace of ``owner`` (a module or a class, kept alive by
        its module), and its containers unless ``watched`` is false."""
        namespace = vars(owner)
        self._namespaces.append(_Namespace(owner, namespace, DictSnapshot(namespace)))
        if not watched:
            return
        containers = {identity(v): n for n, v in namespace.items() if isinstance(v, _KINDS)}
        for name, value in list(namespace.items()):
            self._take_defaults(getattr(value, "__func__", value), containers)
            if not isinstance(value, _KINDS) or name.startswith("__"):
                continue
            if (identity(owner), name) in self._slot_of:
                continue
            self._slot_of.add((identity(owner), name))
            slot = _Slot(namespace, name, value)
            slot.start()
            self._slots.append(slot)
