"""Queries over many keys at once: ``... IN (?,?,...)`` in chunks of at most 500 keys
(SQLite limits the variables of one statement; one query per chunk instead of one per key
is what makes a batch's reads cheap)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

_CHUNK = 500


def rows_in(conn: sqlite3.Connection, query: str, keys: Sequence[Any]) -> Iterator[Any]:
    """The rows of ``query`` (with one ``{marks}`` where the keys' placeholders go) over
    every key of ``keys``."""
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        yield from conn.execute(query.format(marks=",".join("?" * len(chunk))), chunk)
