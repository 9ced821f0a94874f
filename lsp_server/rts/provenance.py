"""Provenance of a refactoring task: where each unit it touched came from.

The refactoring engine (``lsp_server.refactor``) builds one ``Provenance`` per task; the
REKS update rules in this package consume it. It lives here, with its consumer, because
``rts`` imports nothing from the other packages.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from lsp_server.rts.file_units import Unit


class Origin(str, enum.Enum):
    MODIFIED = "modified"  # same unit, new text (rule 1)
    REPLACED = "replaced"  # old unit -> new unit: renamed function, renamed/moved module (rule 2)
    MOVED = "moved"  # old unit -> unit in another file, e.g. move global (rule 3)
    DERIVED = "derived"  # new unit made from old ones, e.g. extract method (rule 3)
    CREATED = "created"  # new unit with no source, e.g. a new empty module
    REMOVED = "removed"  # unit no longer exists, e.g. inlined method


@dataclass(frozen=True)
class UnitChange:
    """One unit touched by a refactoring.

    ``old`` is the unit before the task (None for CREATED); ``new`` after it (None for
    REMOVED; equal to ``old`` for MODIFIED). ``sources`` lists every old unit a DERIVED or
    MOVED unit was made from when there is more than one.
    """

    origin: Origin
    old: Unit | None
    new: Unit | None
    sources: tuple[Unit, ...] = ()


@dataclass(frozen=True)
class TaskTarget:
    """Where a refactoring was asked for: the action name (``rename``, ``extract-method``),
    the root-relative path, and character offsets into ``files_before[path]``. The
    trust-but-verify step matches it against known-failing engine shapes."""

    action: str
    path: str
    offset: int
    end: int | None = None


@dataclass
class Provenance:
    """What a refactoring task did to units.

    ``exact`` is False when the engine could not say precisely where code came from; the
    REKS rules then treat every changed unit as a developer change (its tests run).
    """

    kind: str  # e.g. "rename", "extract-method", "move"
    description: str  # human text for diagnostics, e.g. "rename `a`->`b`"
    changes: list[UnitChange] = field(default_factory=list)
    exact: bool = True
    files_before: dict[str, str | None] = field(default_factory=dict)
    """Path (POSIX, root-relative) -> source text before the task (None: file did not exist)."""
    files_after: dict[str, str | None] = field(default_factory=dict)
    """Path -> source text after the task (None: file removed or renamed away)."""
    target: TaskTarget | None = None

    def add(self, origin: Origin, old: Unit | None, new: Unit | None, *sources: Unit) -> None:
        self.changes.append(UnitChange(origin, old, new, tuple(sources)))

    def rebinding(self) -> tuple[set[Unit], set[Unit]]:
        """The units the task left behind (renamed, moved or removed) and those it made."""
        gone: set[Unit] = set()
        made: set[Unit] = set()
        for change in self.changes:
            if change.new == change.old:
                continue
            if change.old is not None:
                gone.add(change.old)
            if change.new is not None:
                made.add(change.new)
        return gone, made
