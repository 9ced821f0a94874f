"""``Announcements``: refactorings that reached the files and are being announced.

A refactoring the editor applied is announced to the engine's listeners once its
provenance is computed, on a thread (``lsp.features.refactoring.lifecycle.announce``).
A save of its files meanwhile refreshes the test status, and that refresh, done first,
showed the refactored files as a hand edit until the announcement replaced it (issue 15).
Work that must see the announcements already under way waits for them here
(``after``). Used on the server's message loop only.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

AfterAnnouncements = Callable[[bool], None]
"""Called once the announcements under way end, with whether one of them was announced
(False: each was dropped, its provenance failing)."""


@dataclass
class _Waiting:
    then: AfterAnnouncements
    announced: bool = False


@dataclass
class Announcements:
    """Per root (its real path): how many announcements are under way, and what waits."""

    _under_way: dict[str, int] = field(default_factory=dict)
    _waiting: dict[str, list[_Waiting]] = field(default_factory=dict)

    def started(self, root: str) -> None:
        real = os.path.realpath(root)
        self._under_way[real] = self._under_way.get(real, 0) + 1

    def ended(self, root: str, announced: bool) -> None:
        """One announcement under way for ``root`` ended: made to the listeners
        (``announced``) or dropped."""
        real = os.path.realpath(root)
        left = self._under_way.get(real, 1) - 1
        if announced:
            for waiting in self._waiting.get(real, []):
                waiting.announced = True
        if left > 0:
            self._under_way[real] = left
            return
        self._under_way.pop(real, None)
        for waiting in self._waiting.pop(real, []):
            waiting.then(waiting.announced)

    def after(self, root: str, then: AfterAnnouncements) -> None:
        """Call ``then`` once the announcements under way for ``root`` end (now if none)."""
        real = os.path.realpath(root)
        if real in self._under_way:
            self._waiting.setdefault(real, []).append(_Waiting(then))
        else:
            then(False)
