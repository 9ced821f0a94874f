"""A window: what ran and what was opened while one test, fixture setup or collection was
active; ``rts.attribution`` turns windows into units."""

from __future__ import annotations

from dataclasses import dataclass, field

from lsp_server.rts.tracing import CodeSet


@dataclass
class Window:
    """What ran and what was opened while one test, fixture setup or collection was active."""

    codes: CodeSet = field(default_factory=dict)
    files: set[str] = field(default_factory=set)
    # By identity: code whose lines reading code or docstrings ran (``rts.read_lines``).
    read_lines: set[int] = field(default_factory=set)

    def update(self, other: Window) -> None:
        self.codes.update(other.codes)
        self.files |= other.files
        self.read_lines |= other.read_lines
