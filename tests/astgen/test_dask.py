"""``reks engine-test --scheduler``: the checks on a real Dask cluster give the local run's
results."""

from __future__ import annotations

import pytest

from lsp_server.astgen.driver import Config, run

distributed = pytest.importorskip("distributed")


def _rows(outcome: object) -> list[tuple[int, str, list[tuple[str, str]]]]:
    return [
        (r.index, r.engine, sorted((f.oracle, f.detail) for f in r.findings))
        for r in outcome.results  # type: ignore[attr-defined]
    ]


def test_checks_on_a_cluster_equal_the_local_run() -> None:
    from lsp_server.astgen import dask_checks

    config = Config(bound=1, generators=("statements",), engines=("jedi",), limit=6)
    local = run(config)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        on_dask = dask_checks.run(config, cluster.scheduler_address)
    assert on_dask.cases == local.cases == 6
    assert _rows(on_dask) == _rows(local)
