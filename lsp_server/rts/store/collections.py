"""Which tests each test file held at its last whole-file collection (``collected``), and
forgetting the recorded tests that no longer exist."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from lsp_server.rts.store.writes import StoreWrites


class StoreCollections(StoreWrites):
    """What whole-file collections produced."""

    def record_collection(self, files: Mapping[str, Iterable[str]]) -> None:
        """The node ids a whole-file collection of each of ``files`` produced (replacing
        what was known of those files). A recorded test of such a file that the collection
        did not produce no longer exists (renamed, removed, a changed parametrize id) and is
        forgotten: it would be counted among the affected tests forever."""
        with self.transaction():
            self._conn.executemany(
                "INSERT INTO collected VALUES (?,?) ON CONFLICT(path) DO UPDATE"
                " SET nodeids=excluded.nodeids",
                [(path, json.dumps(sorted(ids))) for path, ids in files.items()],
            )
            self.forget_tests(self._gone_tests(files))

    def _gone_tests(self, files: Mapping[str, Iterable[str]]) -> list[str]:
        """Recorded node ids of the collected files' node-id prefixes not collected now."""
        collected = {nodeid for ids in files.values() for nodeid in ids}
        prefixes = {nodeid.split("::", 1)[0] for nodeid in collected}
        rows = self._conn.execute("SELECT nodeid FROM tests")
        return [
            nodeid
            for (nodeid,) in rows
            if nodeid not in collected and nodeid.split("::", 1)[0] in prefixes
        ]

    def forget_tests(self, nodeids: Iterable[str]) -> None:
        with self.transaction():
            for nodeid in nodeids:
                row = self._conn.execute("SELECT id FROM tests WHERE nodeid=?", (nodeid,))
                for (test_id,) in row.fetchall():
                    self.unlink_tests([test_id])
                    self._ran_rows = None
                    for table in ("ran", "setup_times"):
                        self._conn.execute(f"DELETE FROM {table} WHERE test_id=?", (test_id,))
                    self._conn.execute("DELETE FROM tests WHERE id=?", (test_id,))
