"""What the run requests of one analysis share, sent to each worker once.

A run request names its covering tests and, for its deadlines and the timeout rule
(``timeout_rule``), the duration each took on the original code (``basis``): the same few
hundred node ids and durations in request after request. Humanize's 60 requests were
4.0 MB of JSON, 1.6 MB of it node ids and 2.0 MB durations, each encoded by the analysis
and decoded by a worker (or pickled for a Dask task). So the first request of a batch
that a worker gets brings the table of the tests the batch names, with one duration per
test (``TABLE``), and each request names its tests by their place in the table and carries
only the durations that differ from the table's (a function's entry remembered from an
earlier analysis keeps the durations measured then).

The worker keeps the last table it got and puts each request back as the analysis made it
(``received``) before anything reads it, so no code on either side sees the compact form.
A request the table cannot hold (a test it lacks) is sent as it is, as are the requests of
a batch without a table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

TABLE = "table"
"""The key of a request that brings the worker the table of it and of those that follow."""
COMPACT = "compact"
"""Set in a request whose tests are places in the table (``expanded`` undoes it)."""
_DIFFERING = "differing"
"""In a compact request's ``basis``: [place, duration] of each test whose duration is not
the table's; the other tests take the table's."""


@dataclass
class RequestTable:
    tests: list[str] = field(default_factory=list)
    durations: list[float | None] = field(default_factory=list)  # None: no request had one
    places: dict[str, int] = field(default_factory=dict)  # node id -> its place in ``tests``

    @classmethod
    def of(cls, requests: Iterable[dict[str, Any]]) -> RequestTable:
        """The table of ``requests``: each test they name, with the first duration a
        request's ``basis`` gives it."""
        table = cls()
        tests, durations, places = table.tests, table.durations, table.places
        for request in requests:
            known: dict[str, float] = (request.get("basis") or {}).get("durations", {})
            for test in (*request["tests"], *known):
                place = places.get(test)
                if place is None:
                    places[test] = len(tests)
                    tests.append(test)
                    durations.append(known.get(test))
                elif durations[place] is None:
                    durations[place] = known.get(test)
        return table

    def bringing(self, wire: dict[str, Any]) -> dict[str, Any]:
        """``wire`` (``compact``'s) with the table: the first request a worker gets."""
        return {**wire, TABLE: {"tests": self.tests, "durations": self.durations}}

    def received(self, wire: dict[str, Any]) -> tuple[RequestTable, dict[str, Any]]:
        """In the worker: the table to keep (the one ``wire`` brings, else this one) and
        the request as the analysis made it."""
        brought = wire.get(TABLE)
        if brought is None:
            return self, self.expanded(wire)
        tests: list[str] = list(brought["tests"])
        places = {test: place for place, test in enumerate(tests)}
        table = RequestTable(tests, list(brought["durations"]), places)
        return table, table.expanded({k: v for k, v in wire.items() if k != TABLE})

    def compact(self, request: dict[str, Any]) -> dict[str, Any]:
        """``request`` as sent to a worker that has this table (or gets it with this very
        request, ``bringing``)."""
        places = self.places
        tests: list[str] = request["tests"]
        if not all(test in places for test in tests):
            return request
        wire = {**request, "tests": [places[test] for test in tests], COMPACT: True}
        basis = request.get("basis")
        if basis is not None:
            durations: dict[str, float] = basis["durations"]
            if durations.keys() == set(tests):  # else sent as it is
                own = self.durations
                differing = [[places[t], d] for t, d in durations.items() if own[places[t]] != d]
                compact_basis = {k: v for k, v in basis.items() if k != "durations"}
                wire["basis"] = {**compact_basis, _DIFFERING: differing}
        return wire

    def expanded(self, wire: dict[str, Any]) -> dict[str, Any]:
        """The request ``compact`` made ``wire`` from; any other request as it is."""
        if not wire.get(COMPACT):
            return wire
        request = {k: v for k, v in wire.items() if k != COMPACT}
        places: list[int] = wire["tests"]
        request["tests"] = tests = [self.tests[place] for place in places]
        basis = wire.get("basis")
        if basis is not None and _DIFFERING in basis:
            durations = dict(zip(tests, map(self.durations.__getitem__, places), strict=True))
            durations.update((self.tests[place], d) for place, d in basis[_DIFFERING])
            full_basis = {k: v for k, v in basis.items() if k != _DIFFERING}
            request["basis"] = {**full_basis, "durations": durations}
        return request
