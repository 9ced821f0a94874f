"""What the recorded tests ran: the function units each test executed (``ran``) and the
kinds of values those functions returned (``return_kinds``), written with each batch of
test records (``lsp_server.rts.recorder``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from itertools import chain, repeat
from typing import cast

from lsp_server.rts.file_units import Unit
from lsp_server.rts.store.in_chunks import rows_in
from lsp_server.rts.store.writes import StoreWrites


class StoreRuns(StoreWrites):
    """The ``ran`` and ``return_kinds`` halves of recording."""

    def record_ran(self, ran: Mapping[str, Iterable[Unit]]) -> None:
        """Replace the function units each recorded test (by node id) ran. Only the rows
        that change are written: a second session re-records every test, and most ran
        the same functions as before."""
        with self.transaction():
            query = "SELECT nodeid, id FROM tests WHERE nodeid IN ({marks})"
            test_ids = dict(rows_in(self._conn, query, list(ran)))
            wanted = {
                test_ids[nodeid]: self._known_unit_ids(units)
                for nodeid, units in ran.items()
                if nodeid in test_ids
            }
            stored = self._stored_ran(list(wanted))
            none: frozenset[int] = frozenset()
            self._conn.executemany(
                "DELETE FROM ran WHERE unit_id=? AND test_id=?",
                chain.from_iterable(
                    zip(stored.get(t, none) - units, repeat(t)) for t, units in wanted.items()
                ),
            )
            self._conn.executemany(
                "INSERT INTO ran VALUES (?,?)",
                chain.from_iterable(
                    zip(units - stored.get(t, none), repeat(t)) for t, units in wanted.items()
                ),
            )
            stored.update(wanted)

    def _stored_ran(self, test_ids: list[int]) -> dict[int, set[int]]:
        """The stored rows of ``test_ids`` (and maybe more) by test. The table has no index
        by test: reading a batch's rows scanned it at every batch (a quarter of a second
        per session on jinja's 909 tests), so the first batch reads it whole and later
        ones use what is kept. Once another writer (an xdist worker) made the caches go,
        each batch reads its own rows again: a whole read per batch would cost more."""
        if self._ran_rows is not None:
            return self._ran_rows
        rows: dict[int, set[int]] = {}
        if self._ran_read_whole:
            query = "SELECT unit_id, test_id FROM ran WHERE test_id IN ({marks})"
            found = rows_in(self._conn, query, test_ids)
        else:
            found = self._conn.execute("SELECT unit_id, test_id FROM ran").fetchall()
            self._ran_read_whole = True
            self._ran_rows = rows
        for unit_id, test_id in found:
            rows.setdefault(test_id, set()).add(unit_id)
        return rows

    def _known_unit_ids(self, units: Iterable[Unit]) -> set[int]:
        """The store ids of the ``units`` the store knows: those the cache holds looked up
        in C (a test runs a hundred functions), the others asked of the store."""
        cache = self._unit_id_cache
        units = list(units)
        looked_up: set[int | None] = set(map(cache.get, units))
        missing = None in looked_up
        looked_up.discard(None)
        uids = cast(set[int], looked_up)
        if missing:
            for unit in units:
                if unit not in cache:
                    hit = self._conn.execute(
                        "SELECT id FROM units WHERE path=? AND name=?", (unit.path, unit.name)
                    ).fetchone()
                    if hit is not None:
                        uids.add(hit[0])
        return uids

    def return_kinds_unknown_before(self, session_id: int) -> None:
        """No test recorded before ``session_id`` has its return kinds recorded (a session
        whose tracer records none: ``CodeTracer.records_returns``): a function without
        kinds may have returned in any of them."""
        with self.transaction():
            self._conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('return_kinds_since', ?)", (str(session_id),)
            )

    def record_return_kinds(
        self, kinds: Mapping[Unit, Iterable[str]], session_id: int | None = None
    ) -> None:
        """Add the kinds each function unit returned (known units only): to what is
        recorded for its current checksum, or instead of what an older version returned.
        ``session_id``: the session whose tests ran them (the first such session is kept:
        a function unit without kinds ran in no test recorded since)."""
        with self.transaction():
            if session_id is not None:
                self._conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('return_kinds_since', ?)",
                    (str(session_id),),
                )
            for unit, found in kinds.items():
                row = self._conn.execute(
                    "SELECT u.id, u.checksum, r.checksum, r.kinds FROM units u"
                    " LEFT JOIN return_kinds r ON r.unit_id=u.id WHERE u.path=? AND u.name=?",
                    (unit.path, unit.name),
                ).fetchone()
                if row is None:
                    continue
                unit_id, checksum, recorded_for, recorded = row
                merged = set(found)
                if recorded is not None and recorded_for == checksum:
                    merged.update(json.loads(recorded))
                self._conn.execute(
                    "INSERT INTO return_kinds VALUES (?,?,?) ON CONFLICT(unit_id) DO UPDATE"
                    " SET checksum=excluded.checksum, kinds=excluded.kinds",
                    (unit_id, checksum, json.dumps(sorted(merged))),
                )
