"""The instrumented tracer's ``__reks_return__`` (``rts.return_sites``): the kind of each
value a marked function returns, into the tracer's ``returns`` (``CodeTracer``), as many per
function and test as ``sys.monitoring`` gives on 3.12 (``RETURNS_PER_TEST``); then its sites
are known (no call) until the next test. A site returning a constant is known after its
first return for the whole session: its kind cannot change."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from types import CodeType

from lsp_server.rts.identity import identity
from lsp_server.rts.return_sites import RETURN_NAME, ReturnSites
from lsp_server.rts.returns import KIND_BY_TYPE, OTHER_KIND, RETURNS_PER_TEST
from lsp_server.rts.tracing import ReturnKinds


class ReturnNotes:
    """Notes return kinds while installed (``start``/``stop``); ``next_test`` lets the
    sites known for the test just ended be noted again."""

    def __init__(
        self, sites: ReturnSites, codes: list[tuple[CodeType, ...] | None], returns: ReturnKinds
    ) -> None:
        self._sites = sites
        self._full: list[int] = []  # functions whose expression sites are known this test
        self._note = self._noter(codes, returns)

    def _noter(
        self, codes: list[tuple[CodeType, ...] | None], returns: ReturnKinds
    ) -> Callable[[int, object], object]:
        """The function every unknown return calls: everything it needs in its closure."""
        sites = self._sites
        known, function, constant, varying = (
            sites.known,
            sites.function,
            sites.constant,
            sites.varying,
        )
        counts: dict[int, int] = {}
        full, kinds_by_type = self._full, KIND_BY_TYPE

        def note(site: int, value: object) -> object:
            index = function[site]
            group = codes[index] if index >= 0 else None
            if group is None:  # not registered (cannot be): stop asking
                known[site] = 1
                return value
            code = group[0]
            key = identity(code)
            found = returns.get(key)
            if found is None:
                found = returns[key] = (code, set())
            found[1].add(kinds_by_type.get(type(value), OTHER_KIND))
            if constant[site] is not None:
                known[site] = 1
                return value
            count = counts[index] = counts.get(index, 0) + 1
            if count >= RETURNS_PER_TEST:
                for at in varying[index]:
                    known[at] = 1
                full.append(index)
            return value

        self._counts = counts
        return note

    def start(self) -> None:
        known = self._sites.known
        known[:] = bytes(len(known))
        self._counts.clear()
        self._full.clear()
        setattr(builtins, RETURN_NAME, self._note)

    def next_test(self) -> None:
        known, varying = self._sites.known, self._sites.varying
        for index in self._full:
            for at in varying[index]:
                known[at] = 0
        self._full.clear()
        self._counts.clear()

    def stop(self) -> None:
        self._sites.all_known()
