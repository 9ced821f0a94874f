"""The observation run of an analysis: start the workers, then run the covering tests once on
the original code (only what the dependency store does not know already)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsp_server.extreme.discover import FunctionInfo
from lsp_server.extreme.observation import StoreView, read_store, test_timeouts
from lsp_server.extreme.pool import WorkerPool
from lsp_server.jobs import Job

if TYPE_CHECKING:
    from lsp_server.extreme.analysis import Analysis, Options


def observe(
    pool: WorkerPool,
    root: Path,
    job: Job,
    analysis: Analysis,
    todo: list[FunctionInfo],
    options: Options,
    known: list[str] | None = None,
) -> dict[str, Any]:
    """Start the workers and run the covering tests once on the original code: which tests
    execute which function, how long each takes, what each function returns."""
    observe_start = time.perf_counter()
    # While the workers collect (a spawned pool).
    facts = read_store(root, todo, analysis.selected_without_environment)
    pool.start(job)
    if pool.collection_errors:
        analysis.errors["(tests)"] = (
            f"{pool.collection_errors} error(s) while collecting the tests; "
            "the tests of those modules were not used (run pytest to see them)"
        )
    pool.prepare(sorted({f.path for f in todo}))
    job.report(0, None, "observing the tests")
    analysis.import_time = pool.import_time & {f.key for f in todo}
    view = StoreView()
    if facts is not None:
        view = facts.view(pool.nodeids, frozenset(analysis.import_time))
    subset = view.subset
    if known is not None and not analysis.import_time:
        # Only their bodies changed: no other test can reach them now.
        subset = [t for t in (subset or pool.nodeids) if t in set(known)]
    if view.subset is None:
        analysis.coverage_source = "observation"
    else:
        analysis.coverage_source = "store" if subset else "store only"
    cap = options.test_timeout
    if subset == []:
        observed: dict[str, Any] = {"tests": {}, "returns": {}, "setup": view.setup}
    else:
        observed = pool.observe(subset, cap, test_timeouts(subset, view.durations, cap))
    analysis.observed_tests += len(observed["tests"])
    analysis.hung_tests = sorted(n for n, t in observed["tests"].items() if t["outcome"] == "hung")
    observed["tests"] = {**view.known_tests, **observed["tests"]}
    observed["store"] = view
    for unit, kinds in [*view.returns.items(), *pool.import_returns.items()]:
        observed["returns"][unit] = sorted({*observed["returns"].get(unit, []), *kinds})
    analysis.observation = time.perf_counter() - observe_start
    return observed
