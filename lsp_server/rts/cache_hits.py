"""Values earlier tests cached, seen by later tests that only hit the cache.

A function under ``functools.lru_cache`` or ``functools.cache`` runs once per argument in a
session: the test that first calls it runs the code that computes the value, and every later
test calling it gets that value without running anything. In a full run after that code
changed, the later test gets the new value and may fail; it must be selected too. So a test
that hit a project cache depends on what ran inside the calls that filled it
(``rts.cached_calls``, 3.12+), or where that cannot be told, on what ran in the tests that
filled it (each filled the cache while it ran: a superset of the code that computed the
values it left there).

The caches are found in the project's modules (module-level functions, and methods in the
bodies of classes defined there), looked for again whenever more modules are loaded; their
``cache_info()`` counters, read before and after each test, tell a fill (misses) from a hit.
A value cached in a module-level dict filled on first use is ``rts.filled_containers``'s.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from lsp_server.rts.cached_calls import CachedCalls
from lsp_server.rts.identity import identity
from lsp_server.rts.plain_values import function_of, is_kind
from lsp_server.rts.project_modules import NewProjectModules, hooks_unheard
from lsp_server.rts.tracing import CodeSet

_CACHE_WRAPPER = type(functools.lru_cache(maxsize=None)(lambda: None))


class CacheHits:
    """Per test: ``before`` when it starts, ``after`` with what it ran when it ends."""

    def __init__(
        self, is_project_file: Callable[[str], bool], calls: CachedCalls | None = None
    ) -> None:
        self._is_project_file = is_project_file
        self._calls = calls  # what ran inside the cached calls, where it can be told
        self._modules = NewProjectModules(is_project_file)
        self._caches: list[Any] = []
        self._known: set[int] = set()  # ids of the caches in ``_caches``
        self._counts: list[tuple[int, int]] = []  # (hits, misses) of each, at test start
        self._fillers: dict[int, CodeSet] = {}  # index in ``_caches`` -> what filled it

    def before(self) -> None:
        with hooks_unheard():  # a value's hooks may warn: ``project_modules``
            self._find_caches()
        self._counts = [_counters(cache) for cache in self._caches]
        if self._calls is not None:
            self._calls.take()  # what ran between tests fills nothing counted

    def after(self, codes: CodeSet) -> None:
        """Add to ``codes`` (what the test ran) what ran in the tests that filled the
        caches it hit; remember what it ran for the caches it filled."""
        with hooks_unheard():  # imported during the test: what they hold, it put there
            self._find_caches()
        hit: list[int] = []
        filled: list[int] = []
        for index, cache in enumerate(self._caches):
            hits, misses = self._counts[index]
            now_hits, now_misses = _counters(cache)
            if now_hits > hits:
                hit.append(index)
            if now_misses > misses:
                filled.append(index)
        found = [self._fillers[i] for i in hit if i in self._fillers]
        spans = self._calls.take() if self._calls is not None else {}
        for index in filled:
            span = spans.get(identity(self._caches[index].__wrapped__.__code__))
            self._fillers.setdefault(index, {}).update(codes if span is None else span)
        for earlier in found:
            codes.update(earlier)

    def _find_caches(self) -> None:
        for module in self._modules.take():
            for value in list(vars(module).values()):
                self._take(value)
                if is_kind(value, type) and vars(value).get("__module__") == module.__name__:
                    for member in list(vars(value).values()):
                        self._take(function_of(member))

    def _take(self, value: object) -> None:
        if type(value) is not _CACHE_WRAPPER or id(value) in self._known:
            return
        code = getattr(getattr(value, "__wrapped__", None), "__code__", None)
        if code is not None and self._is_project_file(code.co_filename):
            self._known.add(id(value))
            self._caches.append(value)
            if self._calls is not None:
                self._calls.watch(code)
            self._counts.append((0, 0))


def _counters(cache: Any) -> tuple[int, int]:
    info = cache.cache_info()
    return info.hits, info.misses
