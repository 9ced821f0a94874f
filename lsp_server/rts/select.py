"""Deciding which tests to run: a test runs when it is new, failed or errored last time,
ran in a different environment, is stale, or one of its units changed. Nothing else may
make it skip."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from lsp_server.rts.deleted_modules import (
    QuietDeletion,
    deleted_units,
    find_quiet_deletions,
    tests_reaching_deleted,
)
from lsp_server.rts.file_units import Unit
from lsp_server.rts.fingerprint import Fingerprint, explain_change
from lsp_server.rts.from_import_checks import unproven
from lsp_server.rts.import_statements import ImportStatementChanges
from lsp_server.rts.imported_wrappers import unproven_wrappers
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.member_receivers import tests_reading_added
from lsp_server.rts.name_takers import files_taking
from lsp_server.rts.option_rules import WHY, OptionChange, judge_option_change
from lsp_server.rts.reads import LISTED_NAMES, NEEDED_BY_IMPORT
from lsp_server.rts.reasons import Reason as Reason
from lsp_server.rts.reasons import ReasonKind as ReasonKind
from lsp_server.rts.reasons import Selection as Selection
from lsp_server.rts.session_listings import tests_listing_session_state
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.spans import ImportStatement
from lsp_server.rts.star_listings import tests_seeing_listings
from lsp_server.rts.store import DependencyStore, TestRecord
from lsp_server.rts.unit_names import (
    MODULE,
    NAMES,
    bound_name,
    gone_with_class,
    header_name,
    importing_parts,
    is_import_risk,
    newly_readable,
    taken_name,
    wrapped_parts,
)

_MODULE_GETATTR = header_name("__getattr__")
_GONE_OR_CHANGED = (ReasonKind.REMOVED, ReasonKind.CHANGED)


def changed_units(
    store: DependencyStore, states: FileStates, quiet: Mapping[str, QuietDeletion] | None = None
) -> dict[Unit, ReasonKind]:
    """Every recorded unit whose current checksum differs from the recorded one (of a
    deleted ``quiet`` module: ``rts.deleted_modules``)."""
    changed: dict[Unit, ReasonKind] = {}
    hashes = store.file_hashes()
    for path, recorded in store.unit_checksums().items():
        raw = states.raw_hash(path)
        if raw is None:
            if hashes.get(path) is None and all(c is None for c in recorded.values()):
                continue  # its deletion was recorded: ``store.deleted_files``
            changed.update(deleted_units(path, recorded, quiet or {}))
            continue
        if raw == hashes.get(path):
            continue
        snap = states.snapshot(path)
        assert snap is not None
        if snap.error is not None:
            changed.update((Unit(path, name), ReasonKind.UNPARSABLE) for name in recorded)
            continue
        gone = recorded.keys() - snap.checksums.keys()
        risks_changed = False  # a display table's read, a class's frame: every importer sees it
        for name, checksum in recorded.items():
            current = snap.checksums.get(name)
            if current is None and checksum is None:
                continue  # gone when the file was last synced: its dependents went stale then
            if current is None:
                # A display table's read, a class's frame gone cannot make the import fail.
                if not gone_with_class(name, gone, recorded) and not is_import_risk(name):
                    changed[Unit(path, name)] = ReasonKind.REMOVED
            elif current != checksum:
                changed[Unit(path, name)] = ReasonKind.CHANGED
                risks_changed = risks_changed or is_import_risk(name)
        new = snap.checksums.keys() - recorded.keys()
        checked = [n for n in new if importing_parts(n) or wrapped_parts(n)]
        for name in newly_readable(new) + checked:
            changed[Unit(path, name)] = ReasonKind.ADDED
        if risks_changed or any(map(is_import_risk, new)):
            changed.setdefault(Unit(path, MODULE), ReasonKind.CHANGED)
    return changed


def tests_reading_changed(
    store: DependencyStore,
    changed: dict[Unit, ReasonKind],
    states: FileStates,
    resolver: ImportResolver | None = None,
) -> dict[str, Unit]:
    """Tests that depend on a module where a name they read is newly bound (it shadows a
    builtin or an imported name, or adds an attribute they looked for), or where a
    top-level name they read is bound by a statement no more (a ``from`` import of it
    fails: ``rts.binding_reads``; with a ``resolver``, only for tests depending on a module
    that still takes it: ``rts.name_takers``; a star import too while ``__all__`` lists
    it), with that unit."""
    added: dict[str, list[Unit]] = {}
    needed: dict[str, dict[str, Unit]] = {}  # what from-imports take, removed
    for unit, kind in changed.items():
        if unit.path == NAMES:
            continue
        if kind is ReasonKind.ADDED and bound_name(unit.name) is not None:
            added.setdefault(unit.path, []).append(unit)
        elif kind in _GONE_OR_CHANGED and (
            name := taken_name(unit.name, kind is ReasonKind.REMOVED)
        ):
            keys = needed.setdefault(unit.path, {})
            keys.setdefault(NEEDED_BY_IMPORT + name, unit)
            if _still_listed(states, unit.path, name):
                keys.setdefault(LISTED_NAMES, unit)
    out: dict[str, Unit] = {}
    importers: dict[tuple[str, str], set[str] | None] = {}  # tests importing a taker
    for path, by_key in sorted(needed.items()):
        for nodeid, key in store.tests_reading(path, by_key, any_name=False).items():
            if resolver is not None and key.startswith(NEEDED_BY_IMPORT):
                if (path, key) not in importers:
                    name = key.removeprefix(NEEDED_BY_IMPORT)
                    takers = files_taking(states, resolver, store.file_hashes(), path, name)
                    importers[(path, key)] = (
                        None
                        if takers is None
                        else {t for f in takers for t in store.tests_depending_on(Unit(f, MODULE))}
                    )
                found = importers[(path, key)]
                if found is not None and nodeid not in found:
                    continue  # no module it imports takes the name any more
            out.setdefault(nodeid, by_key[key])
    for nodeid, unit in tests_reading_added(store, states, added).items():
        out.setdefault(nodeid, unit)
    return out


def _still_listed(states: FileStates, path: str, name: str) -> bool:
    """Whether module ``path``'s ``__all__`` may list ``name`` now (it is gone or unknown:
    yes)."""
    units = states.units(path)
    return units is None or units.listed is None or name in units.listed


def tests_seeing_new_getattr(
    store: DependencyStore, changed: dict[Unit, ReasonKind]
) -> dict[str, Unit]:
    """Tests that import a module given a module ``__getattr__`` since: it answers lookups
    that used to fail (``getattr(m, name, default)``, ``hasattr``), which ran no code of the
    module that could have been recorded. An edited or removed one selects the tests that
    ran it (its units)."""
    out: dict[str, Unit] = {}
    for unit, kind in changed.items():
        if kind is ReasonKind.ADDED and unit.name == _MODULE_GETATTR:
            for nodeid in store.tests_depending_on(Unit(unit.path, MODULE)):
                out.setdefault(nodeid, unit)
    return out


def _unproven_from_imports(
    states: FileStates, resolver: ImportResolver, changed: dict[Unit, ReasonKind]
) -> set[Unit]:
    """The module units of files whose ``from`` imports' names changed in a way every
    importer may see (``rts.from_import_checks``)."""
    added = [u for u, k in changed.items() if k in (ReasonKind.ADDED, ReasonKind.CHANGED)]
    removed = [u for u, k in changed.items() if k is ReasonKind.REMOVED]
    if not added and not removed:
        return set()
    return unproven(states, resolver, added, removed)


def _tests_depending_on_changes(
    root: Path,
    store: DependencyStore,
    states: FileStates,
    changed: dict[Unit, ReasonKind],
    quiet: Mapping[str, QuietDeletion],
) -> dict[str, Unit]:
    """Tests depending on a changed unit, with it; adds to ``changed`` the module units of
    files whose import statements changed in a way every importer may see."""
    resolver = import_resolver(root, states)
    for unit in _unproven_from_imports(states, resolver, changed) | unproven_wrappers(
        states, resolver, changed
    ):
        changed.setdefault(unit, ReasonKind.CHANGED)
    recorded = {path for path, units in store.unit_checksums().items() if MODULE in units}
    statements = ImportStatementChanges(
        states, resolver, changed, recorded, store.tests_depending_on, store.tests_reading, quiet
    )
    for unit in statements.unproven():
        changed.setdefault(unit, ReasonKind.CHANGED)
    # A statement's own unit selects through ``statements`` alone.
    affected = store.tests_depending_on_any(
        {u: k for u, k in changed.items() if u not in statements.statements}
    )
    for nodeid, unit in statements.selected().items():
        affected.setdefault(nodeid, unit)
    return affected


def import_resolver(root: Path, states: FileStates) -> ImportResolver:
    """Where the project's imports lead, from the analysed files of ``states``."""

    def imports_of(rel: str) -> list[ImportStatement] | None:
        file_units = states.units(rel)
        return None if file_units is None else file_units.imports

    return ImportResolver(root, imports_of)


def new_conftests(root: Path, store: DependencyStore, nodeids: Iterable[str]) -> dict[str, Unit]:
    """Tests below a ``conftest.py`` they were not recorded with (created since: it can add
    fixtures, hooks and autouse code), with that file. Every test depends on the conftests
    above its file, so one query per existing conftest tells; only the directories of the
    tests' own files are looked at, one ``stat`` each."""
    dependents: dict[str, tuple[Unit, set[str]] | None] = {}  # directory -> its conftest

    def conftest_in(directory: str) -> tuple[Unit, set[str]] | None:
        if directory not in dependents:
            rel = f"{directory}/conftest.py" if directory else "conftest.py"
            found = None
            if os.path.isfile(os.path.join(root, rel)):
                unit = Unit(rel, MODULE)
                found = (unit, set(store.tests_depending_on(unit)))
            dependents[directory] = found
        return dependents[directory]

    out: dict[str, Unit] = {}
    for nodeid in nodeids:
        parts = nodeid.split("::", 1)[0].split("/")[:-1]
        for depth in range(len(parts) + 1):
            found = conftest_in("/".join(parts[:depth]))
            if found is not None and nodeid not in found[1]:
                out[nodeid] = found[0]
                break
    return out


def _environment_reason(
    store: DependencyStore, fingerprint: Fingerprint, record: TestRecord, selection: Selection
) -> Reason:
    """The environment reason, saying what changed (first computed one per session)."""
    if selection.environment_change is None:
        before = store.session_fingerprint(record.environment, record.options)
        what = explain_change(before, fingerprint.details) if before else ""
        selection.environment_change = what or "installed packages, Python or pytest options"
    return Reason(
        ReasonKind.ENVIRONMENT, detail=f"environment changed: {selection.environment_change}"
    )


class _OptionRules:
    """Reasons for tests recorded under other options only (``rts.option_rules``), each
    distinct earlier fingerprint judged once."""

    def __init__(self, store: DependencyStore, fingerprint: Fingerprint) -> None:
        self.store = store
        self.fingerprint = fingerprint
        self._judged: dict[tuple[str, str | None], tuple[OptionChange, dict[str, str]]] = {}

    def reason(self, nodeid: str, record: TestRecord, selection: Selection) -> Reason | None:
        if record.environment != self.fingerprint.environment:
            return _environment_reason(self.store, self.fingerprint, record, selection)
        key = (record.environment, record.options)
        if key not in self._judged:
            before = self.store.session_fingerprint(*key).get("options")
            after = self.fingerprint.details.get("options")
            change = judge_option_change(
                before if isinstance(before, dict) else None,
                after if isinstance(after, dict) else {},
            )
            readers: dict[str, str] = {}  # why each test runs, by node id
            for name in sorted(change.reads | _READS_OPTIONS) if change.every_test is None else ():
                why = WHY.get(name, "the test reads ini options")
                for reader in self.store.tests_depending_on(Unit(NAMES, name)):
                    readers.setdefault(reader, why)
            self._judged[key] = (change, readers)
        change, readers = self._judged[key]
        if change.every_test is not None:
            if selection.environment_change is None:
                selection.environment_change = change.every_test
            return Reason(
                ReasonKind.ENVIRONMENT, detail=f"environment changed: {change.every_test}"
            )
        if nodeid in readers:
            return Reason(
                ReasonKind.OPTIONS, detail=f"{change.describe} changed: {readers[nodeid]}"
            )
        return None


# Code that reads ini values itself sees any option change.
_READS_OPTIONS = frozenset(["getini", "inicfg"])


def select_affected_tests(
    root: Path,
    store: DependencyStore,
    candidates: Iterable[str] | None = None,
    *,
    fingerprint: Fingerprint | None = None,
    states: FileStates | None = None,
) -> Selection:
    """Decide, for each candidate (default: every recorded test), whether it must run.

    ``fingerprint`` is the current environment; without it the environment is not
    compared. ``states`` lets a caller share the file cache with recording.
    """
    start = time.perf_counter()
    changes = _changes(Path(root), store, states or FileStates(Path(root)))
    return _decide(store, changes, candidates, fingerprint, start)


def select_with_and_without_fingerprint(
    root: Path, store: DependencyStore, fingerprint: Fingerprint, states: FileStates
) -> tuple[Selection, Selection]:
    """``select_affected_tests`` of every recorded test with ``fingerprint`` and without
    one, finding the changes once: that is most of the cost, and it does not depend on
    the environment."""
    start = time.perf_counter()
    changes = _changes(Path(root), store, states)
    with_fingerprint = _decide(store, changes, None, fingerprint, start)
    return with_fingerprint, _decide(store, changes, None, None, time.perf_counter())


@dataclass
class _Changes:
    """The changed units and, for each test one reaches, that unit."""

    records: dict[str, TestRecord]
    changed: dict[Unit, ReasonKind]
    affected: dict[str, Unit]


def _changes(root: Path, store: DependencyStore, states: FileStates) -> _Changes:
    records = store.test_records()
    quiet = find_quiet_deletions(root, states, store.file_hashes())
    changed = changed_units(store, states, quiet)
    affected = _tests_depending_on_changes(root, store, states, changed, quiet)
    resolver = import_resolver(root, states)
    for nodeid, unit in tests_reading_changed(store, changed, states, resolver).items():
        affected.setdefault(nodeid, unit)
    for nodeid, unit in tests_seeing_new_getattr(store, changed).items():
        affected.setdefault(nodeid, unit)
    for nodeid, unit in tests_seeing_listings(store, states, resolver, changed).items():
        affected.setdefault(nodeid, unit)
    for nodeid, unit in tests_listing_session_state(store, changed).items():
        affected.setdefault(nodeid, unit)
    for nodeid, unit in tests_reaching_deleted(store, quiet).items():
        affected.setdefault(nodeid, unit)
    for nodeid, unit in new_conftests(root, store, records).items():
        changed[unit] = ReasonKind.ADDED
        affected.setdefault(nodeid, unit)
    return _Changes(records, changed, affected)


def _decide(
    store: DependencyStore,
    changes: _Changes,
    candidates: Iterable[str] | None,
    fingerprint: Fingerprint | None,
    start: float,
) -> Selection:
    records, changed, affected = changes.records, dict(changes.changed), changes.affected
    selection = Selection(changed_units=changed)
    options = _OptionRules(store, fingerprint) if fingerprint is not None else None
    for nodeid in records if candidates is None else candidates:
        record = records.get(nodeid)
        reason: Reason | None = None
        if record is None:
            reason = Reason(ReasonKind.NEW)
        elif record.outcome == "failed":
            reason = Reason(ReasonKind.FAILED)
        elif record.outcome == "error":
            reason = Reason(ReasonKind.ERROR)
        elif fingerprint is not None and fingerprint.differs_from(
            record.environment, record.options
        ):
            assert options is not None
            reason = options.reason(nodeid, record, selection)
        if reason is None and record is not None:  # no option of its changed either
            if nodeid in affected:
                unit = affected[nodeid]
                reason = Reason(changed[unit], unit)
            elif record.stale is not None:
                reason = Reason(ReasonKind.STALE, detail=record.stale)
        if reason is None:
            selection.unaffected.append(nodeid)
        else:
            selection.selected[nodeid] = reason
    selection.seconds = time.perf_counter() - start
    return selection
