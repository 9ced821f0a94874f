"""What a refactoring task writes: the REKS primitives on dependencies, and the task log.

Each primitive changes unit checksums without a fresh snapshot of the file, so it clears
the file's raw hash (the next selection parses the file again).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping

from lsp_server.rts.file_units import Unit
from lsp_server.rts.store.writes import StoreWrites
from lsp_server.rts.unit_names import NAMES, module_read, read_parts


class StoreRefactorings(StoreWrites):
    """The refactoring-aware updates of ``DependencyStore``."""

    def _unit_id(self, unit: Unit, create_with: str | None = None) -> int | None:
        row = self._conn.execute(
            "SELECT id FROM units WHERE path=? AND name=?", (unit.path, unit.name)
        ).fetchone()
        if row:
            return int(row[0])
        if create_with is None:
            return None
        cur = self._conn.execute(
            "INSERT INTO units (path, name, checksum) VALUES (?,?,?)",
            (unit.path, unit.name, create_with),
        )
        self._unit_paths_cached.discard(unit.path)  # the cache lacks the new unit
        return int(cur.lastrowid or 0)

    def _forget_raw_hash(self, path: str) -> None:
        self._conn.execute("UPDATE files SET raw_hash=NULL WHERE path=?", (path,))
        self.forget_caches()

    def _set_checksum(self, uid: int, unit: Unit, checksum: str, keep: set[int]) -> None:
        """Set a unit's checksum; tests not in ``keep`` that depended on the old value
        become stale (they never ran against ``checksum``)."""
        row = self._conn.execute("SELECT checksum FROM units WHERE id=?", (uid,)).fetchone()
        if row and row[0] != checksum:
            for (test_id,) in self._conn.execute(
                "SELECT test_id FROM deps WHERE unit_id=?", (uid,)
            ).fetchall():
                if test_id not in keep:
                    self._conn.execute(
                        "UPDATE tests SET stale=? WHERE id=? AND stale IS NULL",
                        (f"{unit} changed", test_id),
                    )
        self._conn.execute("UPDATE units SET checksum=? WHERE id=?", (checksum, uid))
        self._forget_raw_hash(unit.path)

    def _dependent_test_ids(self, unit_id: int) -> set[int]:
        return {
            r[0]
            for r in self._conn.execute(
                "SELECT test_id FROM deps WHERE unit_id=?", (unit_id,)
            ).fetchall()
        }

    def refresh_checksum(self, unit: Unit, new_checksum: str) -> None:
        """Rule 1: the unit changed only through a refactoring; its dependents keep their
        results. Unknown units are ignored (no test depends on them)."""
        with self.transaction():
            uid = self._unit_id(unit)
            if uid is None:
                return
            self._conn.execute("UPDATE units SET checksum=? WHERE id=?", (new_checksum, uid))
            self._forget_raw_hash(unit.path)

    def replace_unit(self, old: Unit, new: Unit, checksum: str) -> None:
        """Rule 2: every dependency on ``old`` becomes a dependency on ``new``."""
        with self.transaction():
            ids = self._carry_dependents(old, new, checksum)
            if ids is not None and ids[0] != ids[1]:
                old_id = ids[0]
                self.drop_unit_from_sets(old_id)
                self._forget_unit_records(old_id)
                self._conn.execute("DELETE FROM units WHERE id=?", (old_id,))
                self._forget_raw_hash(old.path)

    def add_dependents(self, source_unit: Unit, new_unit: Unit, checksum: str) -> None:
        """Rule 3: tests that depended on ``source_unit`` also depend on ``new_unit``."""
        with self.transaction():
            self._carry_dependents(source_unit, new_unit, checksum)

    def _carry_dependents(self, source: Unit, new: Unit, checksum: str) -> tuple[int, int] | None:
        """Make every test depending on ``source`` depend on ``new`` (created with
        ``checksum`` if unknown); (source id, new id), or None for an unknown source."""
        source_id = self._unit_id(source)
        if source_id is None:
            return None
        tests = self._dependent_test_ids(source_id)
        new_id = self._unit_id(new, create_with=checksum)
        assert new_id is not None
        self._set_checksum(new_id, new, checksum, keep=tests)
        self.add_dependency(tests, new_id)
        return source_id, new_id

    def carry_module_reads(
        self, old_name: str | None, new_name: str | None, old_path: str, new_path: str
    ) -> None:
        """Rule 2/3 for the names tests read as a module's globals (``NAMES`` units
        ``name@path``, ``rts.reads``): reads of ``old_name`` in any module become reads of
        ``new_name`` there too, and reads of ``old_path``'s globals (its code moved to
        ``new_path``) reads of ``new_path``'s."""
        pairs: list[tuple[str, str]] = []
        for (key,) in self._conn.execute(
            "SELECT name FROM units WHERE path=? AND name LIKE '%@%'", (NAMES,)
        ).fetchall():
            name, path = read_parts(key)
            if new_name is not None and name == old_name != new_name and path is not None:
                pairs.append((key, module_read(new_name, path)))
                name = new_name
            if path == old_path != new_path:
                pairs.append((key, module_read(name, new_path)))
        with self.transaction():
            for key, target in pairs:
                self._carry_dependents(Unit(NAMES, key), Unit(NAMES, target), "")

    def remove_unit(self, unit: Unit) -> None:
        """Forget a unit that no longer exists and every dependency on it."""
        with self.transaction():
            uid = self._unit_id(unit)
            if uid is None:
                return
            self.drop_unit_from_sets(uid)
            self._forget_unit_records(uid)
            self._conn.execute("DELETE FROM units WHERE id=?", (uid,))
            self._forget_raw_hash(unit.path)

    def mark_stale(self, nodeids: Iterable[str], reason: str) -> None:
        with self.transaction():
            self._conn.executemany(
                "UPDATE tests SET stale=? WHERE nodeid=? AND stale IS NULL",
                [(reason, n) for n in nodeids],
            )

    # -- the task log -------------------------------------------------------------------

    def record_task(
        self,
        kind: str,
        description: str,
        *,
        exact: bool,
        fallback: str | None,
        details: Mapping[str, object],
    ) -> int:
        """Log one applied refactoring task (after the last test session); returns its id."""
        with self.transaction():
            after = self._conn.execute("SELECT max(id) FROM sessions").fetchone()[0]
            cur = self._conn.execute(
                "INSERT INTO reks_tasks (applied, kind, description, exact, fallback,"
                " after_session, details) VALUES (?,?,?,?,?,?,?)",
                (
                    time.time(),
                    kind,
                    description,
                    int(exact),
                    fallback,
                    int(after or 0),
                    json.dumps(dict(details)),
                ),
            )
            return int(cur.lastrowid or 0)
