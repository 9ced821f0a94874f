"""Shared dependency sets: how the store keeps each test's units (schema 7).

A test depends on hundreds of units, and the tests of one file mostly on the same ones
(its import closure, the bindings it reads, what ran at import). Writing every test's
whole set as rows was a fifth of a first recording run on sqlparse; here a test links
to its file's *base* (units shared by the file's tests recorded in the same batch), the
*parts* of the rest that it shares with other tests of the batch (``shared_parts``), and
its *own* remainder. Both are kept once per content (``depsets.digest``)
and referenced by id, so 509 tests of ~1,000 units each take ~100,000 rows, not 540,000.

The view ``deps(test_id, unit_id)`` is the union of a test's sets; a test's sets are
disjoint, so the view has no duplicate rows. A set is shared, so only the REKS rules
change one in place (a unit replaced or removed for every test that had it); such a set
loses its digest and is never matched again. A set no test links to any more is deleted.
"""

from __future__ import annotations

import sqlite3
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby, repeat
from operator import itemgetter

import xxhash

from lsp_server.rts.store.in_chunks import rows_in
from lsp_server.rts.store.shared_parts import shared_parts

DEPSET_TABLES = (
    # ``digest``: of the sorted unit ids, NULL once the contents changed in place.
    "CREATE TABLE IF NOT EXISTS depsets (id INTEGER PRIMARY KEY, digest TEXT)",
    "CREATE INDEX IF NOT EXISTS depsets_by_digest ON depsets (digest)",
    "CREATE TABLE IF NOT EXISTS depset_units (set_id INTEGER NOT NULL,"
    " unit_id INTEGER NOT NULL, PRIMARY KEY (set_id, unit_id)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS depset_units_by_unit ON depset_units (unit_id, set_id)",
    "CREATE TABLE IF NOT EXISTS test_depsets (test_id INTEGER NOT NULL,"
    " set_id INTEGER NOT NULL, PRIMARY KEY (test_id, set_id)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS test_depsets_by_set ON test_depsets (set_id, test_id)",
    "CREATE VIEW IF NOT EXISTS deps (test_id, unit_id) AS SELECT l.test_id, s.unit_id"
    " FROM test_depsets l JOIN depset_units s ON s.set_id = l.set_id",
)

# Schema 6 kept one row per test and unit in a ``deps`` table: each test's rows become
# one set of its own (no digest: it is matched by no later test; re-recording the test
# finds the same units and keeps it).
FROM_SCHEMA_6 = (
    *DEPSET_TABLES[:-1],
    "INSERT INTO depsets (id, digest) SELECT DISTINCT test_id, NULL FROM deps",
    "INSERT INTO depset_units (set_id, unit_id) SELECT test_id, unit_id FROM deps",
    "INSERT INTO test_depsets (test_id, set_id) SELECT id, id FROM depsets",
    "DROP TABLE deps",
    DEPSET_TABLES[-1],
)


@dataclass(frozen=True)
class TestUnits:
    """One test to link: its id, the group whose base it may share (its test file), and
    the ids of every unit it depends on."""

    __test__ = False
    test_id: int
    group: str
    unit_ids: frozenset[int]


def digest(unit_ids: Iterable[int]) -> str:
    return xxhash.xxh3_128_hexdigest(array("q", sorted(unit_ids)).tobytes())


class DependencySets:
    """The set half of ``StoreWrites``: link tests to shared sets of unit ids."""

    _conn: sqlite3.Connection
    # Contents of the sets read or written through this connection, and each group's
    # last base; dropped with the other caches when another connection commits.
    _set_units: dict[int, frozenset[int]]
    _bases: dict[str, int]

    def link_dependencies(self, tests: Sequence[TestUnits]) -> None:
        """Make each test depend on exactly its ``unit_ids`` (inside a transaction); a test
        given twice (run twice in one batch) gets its last units."""
        tests = list({test.test_id: test for test in tests}.values())
        old = self._links_of([t.test_id for t in tests])
        digests = self._own_digests(old)
        by_group: dict[str, list[TestUnits]] = {}
        for test in tests:
            linked = old.get(test.test_id, ())
            if linked and self._same_units(linked, test.unit_ids, digests):
                continue  # a rerun that depends on the same units: nothing to write
            by_group.setdefault(test.group, []).append(test)
        # The changed tests' old sets, in one query per 500: ``_base_for`` weighs them.
        changed = (test for members in by_group.values() for test in members)
        self._load_contents({s for test in changed for s in old.get(test.test_id, ())})
        for group, members in by_group.items():
            base = self._base_for(group, members, old)
            new_sets: list[list[int]] = [[] for _ in members]  # each member's, in order
            rests = []
            for test, sets in zip(members, new_sets, strict=True):
                own = test.unit_ids
                if base is not None and self._set_units[base] <= own:
                    sets.append(base)
                    own = own - self._set_units[base]
                rests.append(own)
            # What is left past the base is cut into the parts several members share.
            cut = shared_parts(rests)
            for part, holders in zip(cut.shared, cut.holders, strict=True):
                set_id = self._set_id(part)
                for index in holders:
                    new_sets[index].append(set_id)
            for test, sets, own in zip(members, new_sets, cut.own, strict=True):
                if own:
                    sets.append(self._set_id(own))
                self._relink(test.test_id, old.get(test.test_id, ()), sets)

    def unlink_tests(self, test_ids: Iterable[int]) -> None:
        """Drop the links of tests about to be forgotten (and the sets left unused)."""
        old = self._links_of(list(test_ids))
        for test_id, linked in old.items():
            self._relink(test_id, linked, [])

    def add_dependency(self, test_ids: Iterable[int], unit_id: int) -> None:
        """Make each of ``test_ids`` depend on ``unit_id`` too (REKS rules 2 and 3): a
        one-unit set linked to the tests that lack it keeps each test's sets disjoint."""
        lacking = sorted(set(test_ids) - self._tests_with(unit_id))
        if not lacking:
            return
        set_id = self._set_id(frozenset((unit_id,)))
        self._conn.executemany(
            "INSERT OR IGNORE INTO test_depsets VALUES (?,?)", zip(lacking, repeat(set_id))
        )

    def drop_unit_from_sets(self, unit_id: int) -> None:
        """No test depends on ``unit_id`` any more: the sets holding it change in place
        and are no longer matched by content."""
        self._conn.execute(
            "UPDATE depsets SET digest=NULL WHERE id IN"
            " (SELECT set_id FROM depset_units WHERE unit_id=?)",
            (unit_id,),
        )
        self._conn.execute("DELETE FROM depset_units WHERE unit_id=?", (unit_id,))
        self._set_units.clear()
        self._bases.clear()

    # -- helpers ------------------------------------------------------------------------

    def _tests_with(self, unit_id: int) -> set[int]:
        rows = self._conn.execute("SELECT test_id FROM deps WHERE unit_id=?", (unit_id,))
        return {row[0] for row in rows}

    def _links_of(self, test_ids: list[int]) -> dict[int, tuple[int, ...]]:
        out: dict[int, list[int]] = {}
        query = "SELECT test_id, set_id FROM test_depsets WHERE test_id IN ({marks})"
        for test_id, set_id in rows_in(self._conn, query, test_ids):
            out.setdefault(test_id, []).append(set_id)
        return {test_id: tuple(sets) for test_id, sets in out.items()}

    def _own_digests(self, links: dict[int, tuple[int, ...]]) -> dict[int, str]:
        """The digests of the sets among ``links`` that one test alone links to (its own
        remainder); the contents of the others (its file's base, shared and cached for the
        session) are loaded. A test rerun is compared by its own set's digest: reading every
        test's rows back cost a tenth of a second session (700,000 rows on jinja)."""
        set_ids = sorted({set_id for linked in links.values() for set_id in linked})
        query = (
            "SELECT d.id, d.digest, (SELECT count(*) FROM test_depsets l WHERE l.set_id = d.id)"
            " FROM depsets d WHERE d.id IN ({marks})"
        )
        own: dict[int, str] = {}
        shared = []
        for set_id, key, linked in rows_in(self._conn, query, set_ids):
            if linked == 1 and key is not None:
                own[set_id] = key
            else:  # shared, or changed in place by a REKS rule (no digest)
                shared.append(set_id)
        self._load_contents(shared)
        return own

    def _same_units(
        self, linked: Sequence[int], unit_ids: frozenset[int], own: dict[int, str]
    ) -> bool:
        """Whether the sets ``linked`` (a test's: disjoint) hold exactly ``unit_ids``: the
        sets whose contents are known are taken out of ``unit_ids``; what is left must be
        the one set known by its digest (``own``), else every set is read."""
        by_digest = [set_id for set_id in linked if set_id not in self._set_units]
        if len(by_digest) > 1 or any(set_id not in own for set_id in by_digest):
            self._load_contents(by_digest)
            return self._union(linked) == unit_ids
        known = [units for set_id in linked if (units := self._set_units.get(set_id)) is not None]
        if not all(map(unit_ids.issuperset, known)):
            return False
        # One difference, not one per set (a thousand ids each): the sets are all in
        # ``unit_ids``, so its size tells whether two of them overlap.
        rest = unit_ids.difference(*known)
        if len(rest) != len(unit_ids) - sum(map(len, known)):
            return False
        if not by_digest:
            return not rest
        # xxh3-128 of the sorted ids, as the sets are matched by content (``_set_id``).
        return bool(rest) and digest(rest) == own[by_digest[0]]

    def _contents(self, set_id: int) -> frozenset[int]:
        found = self._set_units.get(set_id)
        if found is None:
            rows = self._conn.execute(
                "SELECT unit_id FROM depset_units WHERE set_id=?", (set_id,)
            ).fetchall()
            found = self._set_units[set_id] = frozenset(row[0] for row in rows)
        return found

    def _load_contents(self, set_ids: Iterable[int]) -> None:
        """Read the contents of the sets not cached yet in one query per 500 sets (a
        second session compares every test's sets with its new units)."""
        missing = [set_id for set_id in set_ids if set_id not in self._set_units]
        self._set_units.update(dict.fromkeys(missing, frozenset()))  # a set may be empty
        query = "SELECT set_id, unit_id FROM depset_units WHERE set_id IN ({marks}) ORDER BY 1"
        for set_id, rows in groupby(rows_in(self._conn, query, missing), itemgetter(0)):
            self._set_units[set_id] = frozenset(map(itemgetter(1), rows))

    def _union(self, set_ids: Sequence[int]) -> frozenset[int]:
        if len(set_ids) == 1:
            return self._contents(set_ids[0])
        return frozenset().union(*map(self._contents, set_ids))

    def _base_for(
        self, group: str, members: list[TestUnits], old: dict[int, tuple[int, ...]]
    ) -> int | None:
        """A set every member depends on wholly: the group's last base or a member's
        previous largest set when one fits all (a rerun keeps its sets), else the
        intersection of the members' units."""
        candidates = [self._bases[group]] if group in self._bases else []
        for test in members:
            linked = old.get(test.test_id, ())
            if linked:
                candidates.append(max(linked, key=lambda s: len(self._contents(s))))
        for candidate in dict.fromkeys(candidates):
            units = self._contents(candidate)
            if units and all(units <= test.unit_ids for test in members):
                self._bases[group] = candidate
                return candidate
        common = frozenset.intersection(*(test.unit_ids for test in members))
        if not common:
            return None
        self._bases[group] = base = self._set_id(common)
        return base

    def _set_id(self, units: frozenset[int]) -> int:
        """The id of a set holding exactly ``units`` (made if none does)."""
        key = digest(units)
        for (set_id,) in self._conn.execute("SELECT id FROM depsets WHERE digest=?", (key,)):
            if self._contents(set_id) == units:  # a digest match is checked, not trusted
                return int(set_id)
        cur = self._conn.execute("INSERT INTO depsets (digest) VALUES (?)", (key,))
        set_id = int(cur.lastrowid or 0)
        self._conn.executemany(
            "INSERT INTO depset_units VALUES (?,?)", zip(repeat(set_id), sorted(units))
        )
        self._set_units[set_id] = units
        return set_id

    def _relink(self, test_id: int, old: Sequence[int], new: Sequence[int]) -> None:
        gone = set(old) - set(new)
        self._conn.executemany(
            "DELETE FROM test_depsets WHERE test_id=? AND set_id=?", zip(repeat(test_id), gone)
        )
        self._conn.executemany(
            "INSERT OR IGNORE INTO test_depsets VALUES (?,?)",
            zip(repeat(test_id), sorted(set(new) - set(old))),
        )
        for set_id in gone:
            unused = self._conn.execute(
                "SELECT 1 FROM test_depsets WHERE set_id=? LIMIT 1", (set_id,)
            ).fetchone()
            if unused is None:
                self._conn.execute("DELETE FROM depset_units WHERE set_id=?", (set_id,))
                self._conn.execute("DELETE FROM depsets WHERE id=?", (set_id,))
                self._set_units.pop(set_id, None)
                for group in [g for g, s in self._bases.items() if s == set_id]:
                    del self._bases[group]
