"""Queries over many keys at once: ``... IN (?,?,...)`` in chunks of at most 500 keys
(SQLite limits the variables of one statement; one query per chunk instead of one per key
is what makes a batch's reads cheap)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

_CHUNK = 500


def rows_in(conn: sqlite3.Connection, query: str, keys: Sequence[Any]) -> list[Any]:
    """The rows of ``query`` (with one ``{marks}`` where the keys' placeholders go) over
    every key of ``keys``, fetched a chunk at a time (hundreds of thousands of rows on a
    large suite: no Python step per row)."""
    rows: list[Any] = []
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        rows += conn.execute(query.format(marks=",".join("?" * len(chunk))), chunk).fetchall()
    return rows
