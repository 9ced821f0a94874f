"""Which reads of a filled container a code object makes (``rts.container_reads``), told
from its instructions the same way on every Python: on 3.10/3.11 a ``LOAD_ATTR`` of a name
at an odd index of ``co_names`` is no method load (its low bit says so on 3.12+ only), and
the instrumented tracer's markers shift every name's index by one."""

from __future__ import annotations

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
