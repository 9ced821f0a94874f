"""The REKS update rules: a refactoring task updates dependencies instead of selecting tests.

Wang et al. (ICSE 2018) observe that a behaviour-preserving change cannot change a test's
outcome, so a refactoring performed by a tool need not select the tests that depend on the
code it touched. ``apply_rules`` takes the ``Provenance`` of one applied task and, in one
store transaction:

* rule 1 (MODIFIED): refreshes the recorded checksum of a unit changed only by the task;
* rule 2 (REPLACED): moves every dependency on the old unit to the new unit (renamed
  function, renamed or moved module);
* rule 3 (MOVED / DERIVED / CREATED): tests that depended on the source of the code also
  depend on the new unit (move global, extract method). This over-approximates: a fresh
  recording may find that some of those tests never execute the new unit.

Developer edits win. A unit whose checksum *before* the task already differs from the
recorded one was edited by hand since the last test session (the paper's Xi_dev): it is
never refreshed, and code that carries such an edit to another unit (a move, an inline)
carries the "must run" with it. A task whose provenance is not exact, or that failed a
trust-but-verify check, is not applied at all: its changes stay ordinary edits and plain
dependency selection runs their tests.

Every task is recorded in the store's task log with the tests plain selection would have
run because of it and those it still runs; the language server turns these into
diagnostics. The tests a trusted task skipped wait in the store's verification log until
a later run verifies them (``lsp_server.rts.verification``).
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lsp_server.rts.analysis_cache import cached_source_units
from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.provenance import Origin, Provenance
from lsp_server.rts.select import ReasonKind, import_resolver, tests_reading_changed
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.tokens import SourceError
from lsp_server.rts.unit_names import MODULE, NAMES, bound_name, is_place


@dataclass
class TaskOutcome:
    """What the rules did for one refactoring task."""

    kind: str
    description: str
    exact: bool
    fallback: str | None = None
    """Why the task was treated as a hand edit (None: the rules were applied)."""
    refreshed: list[Unit] = field(default_factory=list)
    replaced: list[tuple[Unit, Unit]] = field(default_factory=list)
    added: list[tuple[Unit, Unit]] = field(default_factory=list)
    """(source unit, new unit): the new unit's dependents now include the source's."""
    removed: list[Unit] = field(default_factory=list)
    developer_units: list[Unit] = field(default_factory=list)
    """Touched units that carried a hand edit: left as they were, their tests run."""
    skipped_tests: list[str] = field(default_factory=list)
    """Tests plain dependency selection would run because of this task and REKS skips."""
    affected_tests: list[str] = field(default_factory=list)
    """Tests depending on what this task touched that still run (hand edits, fallback)."""
    seconds: float = 0.0
    """Time the rules took for this task, store commit included."""
    task_id: int = 0

    @property
    def applied(self) -> bool:
        return self.fallback is None

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "description": self.description,
            "exact": self.exact,
            "fallback": self.fallback,
            "refreshed": [str(u) for u in self.refreshed],
            "replaced": [[str(a), str(b)] for a, b in self.replaced],
            "added": [[str(a), str(b)] for a, b in self.added],
            "removed": [str(u) for u in self.removed],
            "developer_units": [str(u) for u in self.developer_units],
            "skipped_tests": self.skipped_tests,
            "affected_tests": self.affected_tests,
            "seconds": self.seconds,
        }


def _units_of(path: str, text: str) -> FileUnits | None:
    try:  # shared cache: the engine parsed these very texts to build the Provenance
        return cached_source_units(path, text)
    except SourceError:
        return None


def _side(texts: Mapping[str, str | None]) -> dict[str, FileUnits | None]:
    return {
        path: _units_of(path, text) if text is not None else None
        for path, text in texts.items()
        if path.endswith((".py", ".pyw"))
    }


def _checksum(side: Mapping[str, FileUnits | None], unit: Unit) -> str | None:
    units = side.get(unit.path)
    return None if units is None else units.checksums.get(unit.name)


_IMPORT_LINE = re.compile(r"^[ \t]*(?:import[ \t]+[\w., \t]+|from[ \t]+[\w.]+[ \t]+import)", re.M)


def _import_signature(text: str | None) -> list[str] | None:
    """The import statement heads of a file (``import a.b``, ``from x import``), to notice
    a task that made a module import another one. Textual on purpose: parsing every
    touched file again would dominate the rule time."""
    if text is None:
        return None
    return sorted(m.group(0).strip() for m in _IMPORT_LINE.finditer(text))


class _Rules:
    """One task's rule application; all writes go through the store's REKS primitives."""

    def __init__(self, store: DependencyStore, provenance: Provenance, outcome: TaskOutcome):
        self.store = store
        self.prov = provenance
        self.out = outcome
        self.before = _side(provenance.files_before)
        self.after = _side(provenance.files_after)
        self._known: dict[str, dict[str, str | None]] = {}
        self._carried: set[tuple[str | None, str | None, str, str]] = set()
        self.must_run: set[str] = set()
        self._initial: dict[str, dict[str, str | None]] = {
            path: self._load(path) for path in {*provenance.files_before, *provenance.files_after}
        }

    # -- what the store knows -------------------------------------------------------
    def _load(self, path: str) -> dict[str, str | None]:
        return self.store.units_of(path)

    def recorded(self, unit: Unit) -> tuple[bool, str | None]:
        """(is the unit in the store now, its recorded checksum now)."""
        names = self._known.get(unit.path)
        if names is None:
            names = self._known[unit.path] = self._load(unit.path)
        return unit.name in names, names.get(unit.name)

    def is_developer_edit(self, unit: Unit) -> bool:
        """Xi_dev: the unit's text before the task is not the text its tests last ran,
        judged against the store as it was before this task changed anything."""
        names = self._initial.get(unit.path)
        if names is None:
            names = self._initial[unit.path] = self._load(unit.path)
        if unit.name not in names:
            return False  # no test depended on it: nothing to protect
        recorded = names[unit.name]
        return recorded is None or _checksum(self.before, unit) != recorded

    def note_developer(self, unit: Unit) -> None:
        """Called before the store changes anything about ``unit``."""
        if unit not in self.out.developer_units:
            self.out.developer_units.append(unit)
            self.must_run.update(self.store.tests_depending_on(unit))

    def target_checksum(self, new: Unit, carried_from: Iterable[Unit]) -> str | None:
        """What to record for a unit that gains dependents: an existing unit keeps its
        recorded checksum (a hand edit to it must still select); a new unit gets its text
        after the task, unless it carries a hand edit, then the source's recorded one."""
        known, recorded = self.recorded(new)
        if known:
            return recorded
        for source in carried_from:
            if self.is_developer_edit(source):
                self.note_developer(source)
                return self.recorded(source)[1]
        return _checksum(self.after, new)

    def gain(self, source: Unit, new: Unit, checksum: str | None) -> None:
        if checksum is None or source == new or not self.recorded(source)[0]:
            return
        self.store.add_dependents(source, new, checksum)
        self._known.pop(new.path, None)
        self.out.added.append((source, new))

    # -- the rules ---------------------------------------------------------------------
    def apply(self) -> None:
        self.places_moved()
        touched: list[Unit] = []
        for change in self.prov.changes:
            if change.origin is Origin.MODIFIED and change.old is not None:
                self.modified(change.old)
                touched.append(change.old)
            elif change.origin is Origin.REPLACED and change.old and change.new:
                self.replaced(change.old, change.new)
                touched.append(change.new)
        for change in self.prov.changes:
            if change.origin in (Origin.MOVED, Origin.DERIVED) and change.new is not None:
                sources = list(change.sources or ((change.old,) if change.old else ()))
                self.carried(change.new, sources, change.old)
            elif change.origin is Origin.CREATED and change.new is not None:
                # Nothing says where its code came from: every unit the task modified may
                # now run it (encapsulate field, introduce factory).
                self.carried(change.new, touched, None)
        for change in self.prov.changes:
            if change.origin is Origin.REMOVED and change.old is not None:
                self.removed(change.old)
        self.new_imports()

    def places_moved(self) -> None:
        """No refactoring keeps the line numbers and source text a test may read (places are
        in no change of the provenance): a moved place's readers run as after a hand edit."""
        for path, recorded in self._initial.items():
            for unit in (Unit(path, name) for name in recorded if is_place(name)):
                if _checksum(self.before, unit) != _checksum(self.after, unit):
                    self.must_run.update(self.store.tests_depending_on(unit))

    def modified(self, unit: Unit) -> None:
        if not self.recorded(unit)[0]:
            return
        if self.is_developer_edit(unit):
            self.note_developer(unit)
            return
        checksum = _checksum(self.after, unit)
        if checksum is not None:
            self.store.refresh_checksum(unit, checksum)
            self._known.pop(unit.path, None)
            self.out.refreshed.append(unit)

    def replaced(self, old: Unit, new: Unit) -> None:
        known, recorded = self.recorded(old)
        if not known:
            return
        if self.is_developer_edit(old):
            self.note_developer(old)
            checksum = recorded  # the new unit still differs from what its tests ran
        else:
            checksum = _checksum(self.after, new)
        if checksum is None:
            return
        self.store.replace_unit(old, new, checksum)
        self._known.pop(old.path, None)
        self._known.pop(new.path, None)
        self.out.replaced.append((old, new))
        self.reads(old, new)

    def reads(self, source: Unit, new: Unit) -> None:
        """Tests that read the source's name now read the new unit's: a later binding of
        that name elsewhere must select them (see ``rts.reads``)."""
        old_name, new_name = bound_name(source.name), bound_name(new.name)
        if new_name is not None and new_name != old_name:
            reader = Unit(NAMES, old_name) if old_name else source
            if self.recorded(reader)[0]:
                self.store.add_dependents(reader, Unit(NAMES, new_name), "")
        carry = (old_name, new_name if new_name != old_name else None, source.path, new.path)
        if carry[1:] != (None, source.path, source.path) and carry not in self._carried:
            self._carried.add(carry)  # once per task: it scans every read name
            self.store.carry_module_reads(*carry)
            self._known.pop(NAMES, None)

    def carried(self, new: Unit, sources: list[Unit], old: Unit | None) -> None:
        checksum = self.target_checksum(new, sources)
        module = Unit(new.path, MODULE)
        module_checksum = self.target_checksum(module, sources)
        for source in sources:
            self.gain(source, new, checksum)
            self.reads(source, new)
            if new != module:
                # Running the new unit imports its module: a fresh recording would have it.
                self.gain(source, module, module_checksum)
        if old is not None and _checksum(self.after, old) is None and self.recorded(old)[0]:
            self.store.remove_unit(old)  # moved away: its dependents now follow ``new``
            self._known.pop(old.path, None)
            self.out.removed.append(old)

    def removed(self, unit: Unit) -> None:
        if not self.recorded(unit)[0]:
            return
        if self.is_developer_edit(unit):
            # Its hand-edited code went somewhere (inlined into callers): its tests must run
            # even though the unit itself disappears from the store.
            self.note_developer(unit)
            self.store.mark_stale(
                self.store.tests_depending_on(unit),
                f"{unit} was edited by hand before `{self.prov.description}` removed it",
            )
        self.store.remove_unit(unit)
        self._known.pop(unit.path, None)
        self.out.removed.append(unit)

    def new_imports(self) -> None:
        """A module that now imports another one: tests that import it (statically, at
        collection) now also import the other; give them its module unit."""
        resolver: ImportResolver | None = None
        for path, text in self.prov.files_after.items():
            if path not in self.after or self.after[path] is None:
                continue
            before_text = self.prov.files_before.get(path)
            if _import_signature(before_text) == _import_signature(text):
                continue
            module = Unit(path, MODULE)
            if not self.recorded(module)[0]:
                continue
            resolver = resolver or ImportResolver(self.store.root)
            for imported in sorted(resolver.direct_imports(path)):
                target = Unit(imported, MODULE)
                self.gain(module, target, self.target_checksum(target, [module]))


def _old_units(provenance: Provenance) -> set[Unit]:
    """Units whose text the task changed or removed: what plain selection reacts to."""
    out: set[Unit] = set()
    for change in provenance.changes:
        if change.old is not None and change.origin is not Origin.DERIVED:
            out.add(change.old)
        if change.origin is Origin.DERIVED:
            out.update(change.sources)
    return out


def apply_rules(
    store: DependencyStore, provenance: Provenance, *, distrust: str | None = None
) -> TaskOutcome:
    """Apply the REKS rules for one applied refactoring task and record it.

    ``distrust``: a trust-but-verify check failed with this message; the task is then
    recorded but treated as a hand edit, like a task whose provenance is not exact.
    """
    start = time.perf_counter()
    outcome = TaskOutcome(provenance.kind, provenance.description, provenance.exact)
    if distrust is not None:
        outcome.fallback = distrust
    elif not provenance.exact:
        outcome.fallback = "the refactoring engine could not say exactly where code went"
    with store.transaction():
        old_units = _old_units(provenance)
        would_run = set(store.tests_depending_on_any(old_units))
        if outcome.fallback is None:
            rules = _Rules(store, provenance, outcome)
            rules.apply()
            still = would_run & rules.must_run
        else:  # what plain selection runs: readers of names bound no more or newly too
            gone, new = provenance.rebinding()
            kinds = dict.fromkeys(gone, ReasonKind.REMOVED) | dict.fromkeys(new, ReasonKind.ADDED)
            states = FileStates(store.root)
            resolver = import_resolver(store.root, states)
            still = would_run | tests_reading_changed(store, kinds, states, resolver).keys()
        outcome.affected_tests = sorted(still)
        # Tests that failed last time run anyway: they are not spared by the rules.
        records = store.test_records()
        spared = {
            n
            for n in would_run - still
            if records.get(n) and records[n].outcome in ("passed", "skipped")
        }
        outcome.skipped_tests = sorted(spared)
        outcome.seconds = time.perf_counter() - start
        outcome.task_id = store.record_task(
            provenance.kind,
            provenance.description,
            exact=provenance.exact,
            fallback=outcome.fallback,
            details=outcome.to_json(),
        )
        if outcome.skipped_tests:
            _remember_skipped(store, outcome, provenance)
    # What the developer waits for: the rules and the commit (the logged details hold the
    # time before the commit).
    outcome.seconds = time.perf_counter() - start
    return outcome


def _remember_skipped(store: DependencyStore, outcome: TaskOutcome, prov: Provenance) -> None:
    """Log the skipped tests for later verification, with what an alarm needs."""
    target = None if prov.target is None else dataclasses.asdict(prov.target)
    paths = sorted({*prov.files_before, *prov.files_after})
    files = {p: (prov.files_before.get(p), prov.files_after.get(p)) for p in paths}
    store.remember_skipped(outcome.task_id, outcome.skipped_tests, target, files)


def record_refactoring(
    root: Path | str, provenance: Provenance, *, distrust: str | None = None
) -> TaskOutcome | None:
    """Open the project's store and apply the rules; None when no test was ever recorded
    (no store, or one the extreme analysis made for its verdicts): nothing to update."""
    from lsp_server.rts.store import StoreError, store_path

    if not store_path(Path(root)).exists():
        return None
    try:
        store = DependencyStore(Path(root), create=False)
    except StoreError:
        return None
    with store:
        if not store.has_tests():
            return None
        return apply_rules(store, provenance, distrust=distrust)
