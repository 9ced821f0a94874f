"""The stored files whose state differs from the one a recording session ran against.

A session syncs to the store each file a recorded test depends on (``StoreWrites``). A
changed file no test of the session depends on would stay as stored: every later
selection would see the same change again, and rerun the tests that listed the session's
state (``rts.session_listings``: any change anywhere selects them) although they ran
against it. toolz 7a0382e took a line out of ``bench/test_join.py``, whose test was left
out: its two listing tests ran at each of the next seven commits, three of them touching
no Python file. So the session syncs those files too: the sync marks stale the tests that
depend on a unit that moved and did not run against it, as any sync does.
"""

from __future__ import annotations

from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import NAMES


def stored_drift(store: DependencyStore, states: FileStates) -> tuple[list[str], list[str]]:
    """The stored files gone in the state the session ran against (the selection's:
    ``states`` keeps what it saw of each file), and those changed there."""
    deleted: list[str] = []
    changed: list[str] = []
    for path, stored in store.file_hashes().items():
        current = states.raw_hash(path)
        if current is None:
            deleted.append(path)
        elif current != stored and path != NAMES:  # names read: no file
            changed.append(path)
    return deleted, changed
