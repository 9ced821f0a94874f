"""The extreme analysis's cached verdicts in the store (``extreme_verdicts``)."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from lsp_server.rts.store.writes import StoreWrites


class StoreExtremeCache(StoreWrites):
    """The extreme analysis's part of ``DependencyStore`` (which opens ``_conn``)."""

    def has_extreme_verdicts(self) -> bool:
        """Whether an extreme analysis saved verdicts (under any context)."""
        return self._conn.execute("SELECT 1 FROM extreme_verdicts LIMIT 1").fetchone() is not None

    def extreme_verdicts(self, context: str) -> dict[str, Any]:
        """The extreme analysis's cached entries (function key -> its JSON data) saved
        under ``context``; entries saved under another context are not returned."""
        return dict(self._entries(context))

    def _entries(self, context: str) -> Iterator[tuple[str, Any]]:
        for function, entry in self._conn.execute(
            "SELECT function, entry FROM extreme_verdicts WHERE context=?", (context,)
        ):
            yield function, json.loads(entry)

    def save_extreme_verdicts(
        self, context: str, entries: Mapping[str, object], unchanged: Collection[str] = ()
    ) -> None:
        """Replace the extreme analysis's cached verdicts: ``entries`` maps a function key
        to JSON-able data, all computed under ``context`` (see ``extreme_verdicts``).
        ``unchanged``: keys whose entry was read under this same context and is the same
        now, so not written again (an editor's re-analysis changes a few of hundreds)."""
        with self.transaction():
            self._conn.execute("DELETE FROM extreme_verdicts WHERE context != ?", (context,))
            stored = {key for (key,) in self._conn.execute("SELECT function FROM extreme_verdicts")}
            self._conn.executemany(
                "DELETE FROM extreme_verdicts WHERE function=?",
                [(key,) for key in stored - entries.keys()],
            )
            self._conn.executemany(
                "INSERT OR REPLACE INTO extreme_verdicts (function, context, entry) VALUES (?,?,?)",
                [
                    (key, context, json.dumps(entry))
                    for key, entry in entries.items()
                    if key not in unchanged or key not in stored
                ],
            )
