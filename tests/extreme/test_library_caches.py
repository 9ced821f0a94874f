"""Library caches the worker fills once before forking its children
(``extreme.library_caches``): a child that freezes time reads a few modules' attributes,
not every module's."""

from __future__ import annotations

from collections.abc import Iterator

import freezegun
import freezegun.api as api
import pytest

from lsp_server.extreme.library_caches import fill_library_caches


@pytest.fixture
def module_reads() -> Iterator[list[str]]:
    """The modules whose attributes freezegun reads (its cache missed), from an empty cache."""
    api._GLOBAL_MODULES_CACHE.clear()
    reads: list[str] = []
    setup = api._setup_module_cache

    def counted(module: object) -> None:
        reads.append(getattr(module, "__name__", "?"))
        setup(module)  # type: ignore[arg-type]

    api._setup_module_cache = counted  # type: ignore[assignment]
    yield reads
    api._setup_module_cache = setup  # type: ignore[assignment]


def _freeze(reads: list[str]) -> list[str]:
    """The modules one ``freeze_time`` reads (what each child forked now does first)."""
    reads.clear()
    with freezegun.freeze_time("2020-01-01"):
        pass
    return sorted(reads)


def test_after_it_freezing_time_reads_a_few_modules_again(
    module_reads: list[str],
) -> None:
    fill_library_caches()
    assert len(module_reads) > 100  # pytest's, reks's, the standard library's
    # Modules sharing a name (``os.path``: ``posixpath``) evict each other at each start,
    # and the first start imports a few (dateutil's parser).
    assert len(_freeze(module_reads)) < 30


def test_without_it_freezing_time_reads_every_module(module_reads: list[str]) -> None:
    assert len(_freeze(module_reads)) > 100
