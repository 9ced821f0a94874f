"""The run requests of an analysis go to the workers compact (``request_table``): the tests
and durations they share once per worker, each request as places in that table. The worker
gets back each request exactly as the analysis made it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsp_server.extreme.discover import discover
from lsp_server.extreme.request_table import RequestTable
from lsp_server.extreme.requests import entry_request
from lsp_server.sandbox.wire import encode

TIMING = (0.5, 3.0)
TESTS = [f"tests/test_m.py::test_case[{n}-{'x' * 40}]" for n in range(300)]

FUNCTIONS = """
def inc(x):
    y = x + 1
    return y

def dec(x):
    y = x - 1
    return y
"""


def _entry(tests: list[str], seconds: float) -> dict[str, Any]:
    """A function's state entry as ``requests.time_entry`` leaves it."""
    durations = [seconds + n / 1000 for n in range(len(tests))]
    return {"tests": tests, "durations": durations, "setup": 0.01, "timeout": 60.0}


def _requests(root: Path) -> list[dict[str, Any]]:
    """Requests of two functions over the same tests, one with durations remembered from
    another run, one with one timeout only (no basis), as ``entry_request`` makes them."""
    functions, _ = discover(root, ["m.py"])
    inc, dec = sorted(functions, key=lambda f: f.qualname, reverse=True)
    made = [
        entry_request(n, inc, body, _entry(TESTS, 0.002), None, TIMING)
        for n, body in enumerate(["return None", "return 0"])
    ]
    made.append(entry_request(2, dec, "return None", _entry(TESTS[:200], 0.005), None, TIMING))
    made.append(entry_request(3, dec, "pass", {"tests": TESTS[:3], "timeout": 9.0}, None, TIMING))
    return made


def _received(table: RequestTable, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a worker's table makes of ``requests`` sent compact, the first bringing it."""
    kept = RequestTable()
    back = []
    for n, request in enumerate(requests):
        wire = table.compact(request)
        kept, request_back = kept.received(table.bringing(wire) if n == 0 else wire)
        back.append(request_back)
    return back


def test_the_worker_gets_each_request_as_the_analysis_made_it(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"m.py": FUNCTIONS})
    requests = _requests(root)
    assert "basis" in requests[0] and "basis" not in requests[3]
    table = RequestTable.of(requests)
    assert _received(table, requests) == requests
    # Another batch of the same worker brings its own table; a request the table lacks a
    # test of, and a request of a batch without a table, go as they are.
    other = [dict(requests[2], tests=[*requests[2]["tests"][1:], "tests/test_new.py::t"])]
    assert _received(RequestTable.of(requests[:1]), other) == other
    assert RequestTable().received(requests[1]) == (RequestTable(), requests[1])


def test_requests_over_the_same_tests_are_sent_in_a_fraction_of_the_bytes(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"m.py": FUNCTIONS})
    requests = _requests(root) * 10
    table = RequestTable.of(requests)
    full = sum(len(encode(request)) for request in requests)
    wires = [table.compact(request) for request in requests]
    compact = len(encode(table.bringing(wires[0]))) + sum(map(len, map(encode, wires[1:])))
    assert compact < full / 3, (compact, full)
