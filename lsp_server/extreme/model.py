"""Plain data shared by the extreme runner and the Reneri diagnosis."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Verdict(str, enum.Enum):
    DETECTED = "detected"  # some covering test failed (or the child crashed)
    UNDETECTED = "undetected"  # every covering test passed: the function is pseudo-tested here
    TIMEOUT = "timeout"  # detected by timeout (e.g. an infinite loop)
    ERROR = "error"  # the transformation could not be applied; never counted as detected
    SKIPPED = "skipped"  # not analysed; ``reason`` says why


@dataclass(frozen=True, order=True)
class Transformation:
    """One extreme transformation: the whole body of ``function`` replaced by ``body``."""

    path: str  # POSIX, relative to the project root
    function: str  # qualified name, a Unit name, e.g. "VersionedSet.add"
    line: int  # line of the ``def``
    body: str  # the new body, e.g. "pass", "return True"


@dataclass
class TransformationResult:
    transformation: Transformation
    verdict: Verdict
    tests: list[str] = field(default_factory=list)  # node ids run against it, in order
    reason: str = ""  # why skipped / error text
    detected_by: str | None = None  # node id of the first failing test
    duration: float = 0.0  # seconds spent on this transformation
    # Project units the transformed run executed (None: not recorded); an edit of any
    # other unit cannot change the verdict.
    units: list[str] | None = None
    # The verdict and ``units`` come from the plain run on disk (``disk_check``).
    on_disk: bool = False
