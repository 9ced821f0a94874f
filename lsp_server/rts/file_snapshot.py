"""The current state of one project file, as the dependency store records it and the file
states compute it. Apart from the store, so that what only reads files (a pytest worker's
recorder) need not import the store."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import xxhash


@dataclass(frozen=True)
class FileSnapshot:
    """The current state of one project file: raw hash and the checksum of every unit."""

    path: str
    raw_hash: str
    checksums: Mapping[str, str]  # unit name -> checksum
    error: str | None = None  # set when a Python file does not parse


def file_checksum(data: bytes) -> str:
    """Checksum of a non-Python file: its bytes, unnormalized."""
    return xxhash.xxh3_64_hexdigest(data)
