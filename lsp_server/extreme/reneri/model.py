"""The diagnosis of one undetected extreme transformation."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from lsp_server.extreme.model import Transformation

Symptom = Literal["no-infection", "no-propagation", "weak-oracle", "unknown"]
"""``unknown`` only when the analysis itself failed (``Diagnosis.error`` says why)."""

Stage = Literal["infection", "propagation"]


@dataclass(frozen=True)
class Difference:
    """A property whose value was stable within each side and differed between them.

    ``stage`` infection: observed at an invocation of the transformed function (``line``
    is the line of the test body that led to it, ``expression`` e.g. ``result`` or
    ``self._version``); propagation: observed in the test body at ``line``.
    """

    stage: Stage
    test: str  # node id
    path: str  # file of the location, POSIX, relative to the project root
    line: int | None
    expression: str  # the observed expression/path, e.g. ``s.version``, ``result``
    original: str
    transformed: str
    occurrence: int = 0  # which invocation / execution of the location (0-based)


@dataclass(frozen=True)
class Assertion:
    """An assertion to insert after ``line`` of ``path`` (its text is indented already)."""

    path: str
    line: int
    text: str  # e.g. ``    assert s.version == 1``
    expression: str  # e.g. ``s.version``
    expected: str  # the original value, e.g. ``1``


@dataclass(frozen=True)
class Caller:
    """A public function that reaches a private one in the static call graph."""

    qualname: str
    path: str
    line: int
    distance: int  # 1 = calls it directly


@dataclass
class Diagnosis:
    transformation: Transformation
    symptom: Symptom
    suggestion: str
    differences: list[Difference] = field(default_factory=list)
    test: str | None = None  # node id the suggestion starts from
    test_line: int | None = None  # the line of that test the suggestion is about
    assertion: Assertion | None = None  # weak-oracle only
    callers: list[Caller] = field(default_factory=list)  # no-propagation of private code
    runs: int = 0  # runs per side actually compared
    error: str = ""
    duration: float = 0.0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["function"] = self.transformation.function
        data["file"] = self.transformation.path
        data["line"] = self.transformation.line
        data["body"] = self.transformation.body
        return data
