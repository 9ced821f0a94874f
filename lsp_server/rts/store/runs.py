"""What the recorded tests ran: the function units each test executed (``ran``) and the
kinds of values those functions returned (``return_kinds``), written with each batch of
test records (``lsp_server.rts.recorder``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from itertools import repeat

from lsp_server.rts.file_units import Unit
from lsp_server.rts.store.writes import StoreWrites


class StoreRuns(StoreWrites):
    """The ``ran`` and ``return_kinds`` halves of recording."""

    def record_ran(self, ran: Mapping[str, Iterable[Unit]]) -> None:
        """Replace the function units each recorded test (by node id) ran."""
        with self.transaction():
            tests: list[tuple[int, Iterable[Unit]]] = []
            for nodeid, units in ran.items():
                row = self._conn.execute("SELECT id FROM tests WHERE nodeid=?", (nodeid,))
                found = row.fetchone()
                if found is not None:
                    tests.append((found[0], units))
            # One DELETE per 500 tests: the table has no index by test (each is a scan).
            for start in range(0, len(tests), 500):
                chunk = [test_id for test_id, _ in tests[start : start + 500]]
                marks = ",".join("?" * len(chunk))
                self._conn.execute(f"DELETE FROM ran WHERE test_id IN ({marks})", chunk)
            for test_id, units in tests:
                uids = []
                for unit in units:
                    uid = self._unit_id_cache.get(unit)
                    if uid is None:
                        hit = self._conn.execute(
                            "SELECT id FROM units WHERE path=? AND name=?", (unit.path, unit.name)
                        ).fetchone()
                        uid = None if hit is None else hit[0]
                    if uid is not None:
                        uids.append(uid)
                self._conn.executemany(
                    "INSERT OR IGNORE INTO ran VALUES (?,?)", zip(uids, repeat(test_id))
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
