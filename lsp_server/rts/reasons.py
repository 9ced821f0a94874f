"""Why a test must run (``Reason``) and a selection's answer (``Selection``), apart from
``rts.select`` (which decides them) to keep each module short; ``rts.select`` exports them."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from lsp_server.rts.file_units import Unit


class ReasonKind(str, enum.Enum):
    NEW = "new"
    FAILED = "failed last time"
    ERROR = "error last time"
    ENVIRONMENT = "environment changed"
    STALE = "stale"  # a unit changed and was re-recorded by another test
    CHANGED = "changed"
    REMOVED = "removed"
    DELETED = "deleted"
    ADDED = "added"  # a conftest.py where the tests had none, a name newly bound
    UNPARSABLE = "does not parse"
    OPTIONS = "pytest option changed"  # one the test is sensitive to (rts.option_rules)


@dataclass(frozen=True)
class Reason:
    kind: ReasonKind
    unit: Unit | None = None
    detail: str = ""

    def __str__(self) -> str:
        if self.kind in (ReasonKind.STALE, ReasonKind.OPTIONS) or (
            self.kind is ReasonKind.ENVIRONMENT and self.detail
        ):
            return self.detail
        if self.unit is not None:
            return f"{self.unit} {self.kind.value}"
        return self.kind.value

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind.value,
            "unit": None if self.unit is None else str(self.unit),
            "text": str(self),
        }


@dataclass
class Selection:
    """What to run and why; ``unaffected`` tests can be skipped."""

    selected: dict[str, Reason] = field(default_factory=dict)
    unaffected: list[str] = field(default_factory=list)
    changed_units: dict[Unit, ReasonKind] = field(default_factory=dict)
    seconds: float = 0.0
    environment_change: str | None = None
    """Why recorded results no longer hold, when the environment changed."""

    def should_run(self, nodeid: str) -> bool:
        return nodeid in self.selected

    def to_json(self) -> dict[str, object]:
        return {
            "selected": [{"nodeid": n, **r.to_json()} for n, r in self.selected.items()],
            "unaffected": list(self.unaffected),
            "changed_units": {str(u): k.value for u, k in sorted(self.changed_units.items())},
            "seconds": self.seconds,
        }
