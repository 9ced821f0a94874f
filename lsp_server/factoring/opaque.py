"""Opaque handles: objects of E's classes that T hands to E without E having made them in
the test (requests passes a urllib3 ``Timeout`` made before the test to urllib3). They have
no transcript form, but T only passes them on: the transcript names them by number and type,
as it names T's own objects, and replay hands E's answers the same object back. That holds
only while E leaves them unchanged (replay does not run E), so each one's state is noted
when T first hands it over and compared at the end of the capture: a change refuses the
boundary."""

from __future__ import annotations

from typing import Any

from lsp_server.factoring.boundary import Boundary
from lsp_server.factoring.values import qualified_name


class OpaqueObjects:
    """The opaque objects of one capture, with their state when T first handed them over."""

    def __init__(self, boundaries: list[Boundary]) -> None:
        self._boundaries = boundaries
        self._seen: dict[int, tuple[Any, str]] = {}

    def owns(self, value: Any) -> bool:
        """Whether ``value`` is an instance of one of E's classes."""
        return any(b.member_name(type(value)) for b in self._boundaries)

    def note(self, value: Any) -> None:
        if id(value) not in self._seen:
            self._seen[id(value)] = (value, _state(value))  # keeps it alive: ids stay unique

    def changed(self) -> str | None:
        """Why the boundary is refused when E changed one of them (None: unchanged)."""
        for value, before in self._seen.values():
            if _state(value) != before:
                return (
                    f"E changed a {qualified_name(type(value))} that T handed over (it has no "
                    "transcript form, and replay would leave it unchanged)"
                )
        return None


def _state(value: Any) -> str:
    try:
        attributes = vars(value)
    except TypeError:
        return repr(value)
    return repr(sorted(attributes.items(), key=lambda item: item[0]))
