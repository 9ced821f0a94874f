"""The order in which a transformation's covering tests run, and their deadlines.

The covering tests of a transformation not yet run are reordered by what detected the
transformations run before it in the same analysis (``DetectingTests``): a test that
detected another transformation of the same function first, then the tests naming the
function, then by how many transformations each detected. The functions take turns
(``taking_turns``), so that a function's next transformation is sent once its previous one
has told what detected it.

A detection needs one failing test, so the sooner a detecting test runs the cheaper the
transformation. Before an analysis knows anything, the tests that name the function come
first, the others fastest first, the cases of a parametrized test taking turns with the
other tests (``detection_order``). On sqlparse that left a
test that checks the grouping of identifiers 366th for ``group_values -> pass`` (3 s of
the run), although it had detected other grouping functions already: a test that has
detected transformations of other functions checks results that many functions feed,
so it is tried before the others. The remembered detector of this very transformation
(``requests.first_detector``) and tests naming the function keep their places first.

A test whose name holds most words of the function's name, not the whole of it, comes
right after those naming it whole (``naming``): humanize's
``_get_default_locale_path -> return None`` ran 211 tests before
``test_default_locale_path_defined__spec__``, named after three of its four words. One
shared word is no naming (``default`` is in many names).

The order of the tests decides only how soon a verdict comes: an undetected verdict runs
them all, and any failing test is a detection.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any


class DetectingTests:
    """How many transformations each test has detected so far in this analysis, and which
    tests detected transformations of each function."""

    def __init__(self) -> None:
        self.detections: Counter[str] = Counter()
        self.by_function: dict[str, set[str]] = {}  # function key -> its detectors

    def record(self, reply: dict[str, Any], function: str = "") -> None:
        """Count the reply's detector; ``function``: the key of the transformed function."""
        detector = reply.get("detected_by")
        if reply.get("verdict") == "detected" and detector:
            self.detections[detector] += 1
            self.by_function.setdefault(function, set()).add(detector)

    def ordered(self, requests: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """``requests``, each reordered (``promote``) when it is taken to be sent: after
        the replies that came before it were recorded."""
        for request in requests:
            self.promote(request)
            yield request

    def promote(self, request: dict[str, Any]) -> None:
        """Reorder the tests of ``request`` in place, its deadlines with them."""
        tests: list[str] = request["tests"]
        if not self.detections or len(tests) < 2:
            return
        pinned = tests[:1] if request.get("pinned") else []
        name = FunctionName.of(request["function"])
        own = self.by_function.get(function_key(request), set())
        detections = self.detections.get  # not ``Counter.__missing__``: ~20,000 calls

        def rank(test: str) -> tuple[bool, int, int]:
            return (test not in own, -name.naming(test), -detections(test, 0))

        rest = sorted(tests[len(pinned) :], key=rank)  # stable: the turns kept within a rank
        request["tests"] = order = [*pinned, *rest]
        if order == tests:
            return  # its deadlines are those of this order already
        basis = request.get("basis")
        if basis and request.get("deadlines"):
            base, factor = basis["timing"]
            request["deadlines"] = deadlines(
                order, basis["durations"], basis["margin"], base, factor, request["timeout"]
            )


def function_key(request: dict[str, Any]) -> str:
    """The key (``path::qualname``) of the function a request transforms."""
    return f"{request.get('path', '')}::{request['function']}"


def taking_turns(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``requests`` with the functions taking turns (the first transformation of each, then
    the second of each, ...), each function's in their order: when the next of a function
    is sent, what detected its previous one is known (``promote``), which the worker busy
    with that previous one would not have told yet had they come one after the other."""
    queues: dict[str, list[dict[str, Any]]] = {}
    for request in requests:
        queues.setdefault(function_key(request), []).append(request)
    rounds = max((len(queue) for queue in queues.values()), default=0)
    return [queue[turn] for turn in range(rounds) for queue in queues.values() if turn < len(queue)]


def detection_order(
    qualname: str, tests: Iterable[str], durations: Mapping[str, float]
) -> list[str]:
    """The covering ``tests`` in the order most likely to detect a transformation of
    ``qualname`` soonest: those whose name (class or function, not file) names the
    function first (``IterIndexTests`` for ``iter_index``: they check its results, while
    hundreds of others only pass through it), each group by ``turns``."""
    tests = list(tests)
    turn = turns(tests, durations)
    name = FunctionName.of(qualname)  # once: a function's covering tests can be thousands
    return sorted(tests, key=lambda t: (-name.naming(t), turn[t], t))


def turns(tests: list[str], durations: Mapping[str, float]) -> dict[str, tuple[float, float]]:
    """Per test, its place in a run that gives each test function its turn: the seconds
    its function's cases up to it take (fastest case first), then its own. The cases of
    one parametrized test tend to pass or fail together (humanize's ``naturaltime`` has
    hundreds passing ``None`` through ``_convert_aware_datetime``: ``return None`` ran
    241 tests before the one that detects it); a test that is not parametrized keeps its
    place fastest first."""
    cases: dict[str, list[str]] = {}
    for test in sorted(tests, key=lambda t: (durations[t], t)):
        cases.setdefault(parametrized_test(test), []).append(test)
    turn: dict[str, tuple[float, float]] = {}
    for group in cases.values():
        so_far = 0.0
        for test in group:
            so_far += durations[test]
            turn[test] = (so_far, durations[test])
    return turn


def parametrized_test(nodeid: str) -> str:
    """The test function of a case: its node id without the parameters (``[...]``)."""
    head, sep, name = nodeid.rpartition("::")
    return head + sep + name.partition("[")[0]


WHOLE_NAME = 1 << 16
"""``FunctionName.naming`` of a test whose name holds the function's whole name."""


class FunctionName:
    """A function's own name as test names are compared with it (``naming``)."""

    def __init__(self, qualname: str) -> None:
        own = qualname.rsplit(".", 1)[-1]
        self.plain = own.replace("_", "").lower()  # ``iter_index``, ``IterIndex``: iterindex
        self.words = name_words(own)

    @classmethod
    def of(cls, qualname: str) -> FunctionName:
        return _function_name(qualname)

    def naming(self, nodeid: str) -> int:
        """How much the test's name (class or function, not file) names the function:
        ``WHOLE_NAME`` when it holds the whole name, else how many of its words it holds
        when they are at least two and at least half of them, else 0."""
        plain, words = _test_name(nodeid)
        if self.plain and self.plain in plain:
            return WHOLE_NAME
        shared = len(self.words & words)
        return shared if shared >= 2 and 2 * shared >= len(self.words) else 0


@functools.lru_cache(maxsize=1 << 12)
def _function_name(qualname: str) -> FunctionName:
    return FunctionName(qualname)


_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def name_words(name: str) -> frozenset[str]:
    """The words of a name, lower case: split at underscores and where a capital starts
    one (``get_default_locale_path``, ``TestGetDefaultLocalePath``)."""
    return frozenset(word.lower() for word in _WORD.findall(name))


@functools.lru_cache(maxsize=1 << 16)
def _test_name(nodeid: str) -> tuple[str, frozenset[str]]:
    """The name part of a test's node id (no file), as ``naming`` compares it: without
    underscores in lower case (parameters kept, as before words counted), and the words
    of its class and function names (parameters are data, not names)."""
    name = nodeid.partition("::")[2]
    return name.replace("_", "").lower(), name_words(name.partition("[")[0])


def first_detector(tests: list[str], detected_by: str | None) -> list[str]:
    """``tests`` with the one that detected the transformation last time first: a detection
    is one failing test, whichever order they run in, so it comes at once again."""
    if detected_by is None or detected_by not in tests:
        return tests
    return [detected_by, *(t for t in tests if t != detected_by)]


def deadlines(
    tests: list[str],
    durations: dict[str, float],
    margin: float,
    base: float,
    factor: float,
    timeout: float,
) -> list[float]:
    """Per test, seconds from the start of a transformation's run by which it must have
    finished: ``factor`` times what the tests up to it took on the original code plus
    ``margin`` (the shared fixtures' set-up, see ``setup_margin``: a test that paid for
    them on the original run may come later here, or not at all), plus ``base``; never
    beyond ``timeout``. A run that hangs in its first, fast test is stopped after that
    test's share instead of the whole ``timeout``."""
    out: list[float] = []
    elapsed = margin
    for test in tests:
        elapsed += durations.get(test, 0.0)
        out.append(min(timeout, base + factor * elapsed))
    return out
