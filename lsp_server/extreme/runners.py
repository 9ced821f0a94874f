"""Where the planned transformations run: the local pool's workers, or a Dask cluster's."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from lsp_server.extreme.pool import WorkerPool
from lsp_server.extreme.request_table import RequestTable
from lsp_server.jobs import Job

Runner = Callable[[Iterable[dict[str, Any]], Job, RequestTable], Iterator[dict[str, Any]]]
"""Runs worker requests, yielding each reply as it arrives (the local pool takes each
request from the iterable when a worker is free for it); each is sent compact by the table
of what they share (``request_table``)."""


def runner_for(
    scheduler: str | None,
    pool: WorkerPool,
    python: str | None,
    pytest_args: Sequence[str],
    files: list[str],
) -> Runner:
    """``pool.run_all``, or the cluster at ``scheduler`` (its Dask workers start pytest
    workers of their own over ``pool.root``, prepared for ``files``)."""
    if not scheduler:
        return pool.run_all
    try:
        from lsp_server.extreme import dask_runner
    except ImportError as exc:
        raise ValueError("--scheduler needs Dask distributed: pip install 'reks[dask]'") from exc

    def run_all(
        requests: Iterable[dict[str, Any]], job: Job, table: RequestTable
    ) -> Iterator[dict[str, Any]]:
        try:
            yield from dask_runner.run_all(
                scheduler, pool.root, python, pytest_args, files, requests, job, table
            )
        except dask_runner.DaskUnavailable as exc:
            raise ValueError(str(exc)) from exc

    return run_all
