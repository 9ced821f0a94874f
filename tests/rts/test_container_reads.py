"""Which reads of a filled container a code object makes (``rts.container_reads``), told
from its instructions the same way on every Python: on 3.10/3.11 a ``LOAD_ATTR`` of a name
at an odd index of ``co_names`` is no method load (its low bit says so on 3.12+ only), and
the instrumented tracer's markers shift every name's index by one."""

from __future__ import annotations

import sys
from types import CodeType

import pytest

from lsp_server.rts.container_reads import container_reads


def _function(source: str) -> CodeType:
    code = compile(source, "m.py", "exec")
    return next(c for c in code.co_consts if isinstance(c, CodeType))


@pytest.mark.parametrize("before", ["", "self.other\n    "], ids=["even", "odd"])
def test_an_attribute_container_is_read_whatever_its_name_index(before: str) -> None:
    code = _function(f"def value(self, k):\n    {before}return self._cache[k]\n")
    assert code.co_names.index("_cache") % 2 == (1 if before else 0)
    reads = container_reads(code, {"_cache"})
    assert reads is not None
    assert [site[0] for site in reads.sites.values()] == ["_cache"]


@pytest.mark.parametrize("before", ["", "other\n    "], ids=["even", "odd"])
def test_a_global_container_is_read_whatever_its_name_index(before: str) -> None:
    code = _function(f"def value(k):\n    {before}return _CACHE[k]\n")
    reads = container_reads(code, {"_CACHE"})
    assert reads is not None
    assert [site[0] for site in reads.sites.values()] == ["_CACHE"]


SIZE_READS = {
    "len": "return len(_CACHE)",
    "keys": "return list(_CACHE.keys())",
    "__iter__": "return [k for k in _CACHE]",
}


@pytest.mark.skipif(sys.version_info < (3, 12), reason="the shapes of 3.12's instructions")
@pytest.mark.parametrize("reader", SIZE_READS)
def test_a_size_read_is_told_by_what_reads_it(reader: str) -> None:
    reads = container_reads(_function(f"def f():\n    {SIZE_READS[reader]}\n"), {"_CACHE"})
    assert reads is not None and not reads.everything and not reads.changes
    assert [site[1] for site in reads.sites.values()] == [("size", reader)]


@pytest.mark.parametrize(
    "body",
    ["return _CACHE.keys().mapping", "return _CACHE.pop(k, None)", "return list(_CACHE.items())"],
)
def test_reads_that_reach_values_are_no_presence_reads(body: str) -> None:
    reads = container_reads(_function(f"def f(k):\n    {body}\n"), {"_CACHE"})
    assert reads is not None
    presence_only = [site for site in reads.sites.values() if site[3]]
    assert reads.everything or (reads.sites and not presence_only)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="the shapes of 3.12's instructions")
def test_a_store_is_watched_and_a_drop_is_a_change() -> None:
    code = _function("def f(k, v):\n    _CACHE[k] = v\n    _CACHE.pop(k, None)\n")
    reads = container_reads(code, {"_CACHE"})
    assert reads is not None
    assert [store[0] for store in reads.stores.values()] == ["_CACHE"]
    assert reads.changes == {"_CACHE"}
    assert [site[3] for site in reads.sites.values()] == [True]  # its value dropped
