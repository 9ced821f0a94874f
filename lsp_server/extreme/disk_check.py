"""Verdicts checked the plain way: the file rewritten in a private copy, the covering tests
run afresh. Import-time functions take that verdict (swapping code after import cannot see
the change); ``--verify N`` samples other undetected verdicts to catch defects of the
in-place analysis."""

from __future__ import annotations

import contextlib
import os
import queue
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.on_disk import DiskVerdict, PrivateCopy
from lsp_server.jobs import Job

if TYPE_CHECKING:
    from lsp_server.extreme.analysis import Analysis, Options

IMPORT_TIME = (
    "it ran while the project was imported (a decorator, a class body, a module-level call "
    "or a cached value), which swapping its code afterwards cannot change"
)
ON_DISK = "checked on disk"
"""In the reason of a result whose verdict the plain run on disk gave."""
DISK_TIMEOUT_BASE = 60.0
"""Seconds a plain pytest run may take beyond the in-place timeout (start, collection)."""
DISK_TIMEOUT_CAP = 600.0


def check_on_disk(
    root: Path,
    options: Options,
    analysis: Analysis,
    planned: dict[int, tuple[Transformation, dict[str, Any]]],
    done: list[TransformationResult],
    job: Job,
) -> list[TransformationResult]:
    """The undetected verdicts of import-time functions (and ``options.verify`` others)
    checked the plain way: the file rewritten in a private copy, the tests run afresh.
    An import-time function takes that verdict; any other disagreement is a defect."""
    import_time = [
        r for r in done if r.verdict is Verdict.UNDETECTED and _key(r) in analysis.import_time
    ]
    sample = [
        r for r in done if r.verdict is Verdict.UNDETECTED and _key(r) not in analysis.import_time
    ][: max(0, options.verify)]
    if not options.on_disk:
        for result in import_time:
            result.verdict = Verdict.SKIPPED
            result.reason = f"not analysable in place: {IMPORT_TIME}"
        import_time = []
    if not import_time and not sample:
        return done
    timeouts = {planned[i][0]: float(request["timeout"]) for i, (_, request) in planned.items()}
    checks = [*import_time, *sample]
    job.report(0, len(checks), "checking on disk")
    copies = min(len(checks), options.jobs or os.cpu_count() or 1)
    for count, (result, checked) in enumerate(
        _run_checks(root, options, checks, timeouts, copies, job), 1
    ):
        t = result.transformation
        analysis.checked_on_disk += 1
        job.report(count, len(checks), f"{t.function}: {t.body} on disk")
        if result in import_time:
            result.verdict = checked.verdict
            result.reason = f"{IMPORT_TIME}; {ON_DISK}: {checked.detail}"
        elif checked.verdict is not Verdict.UNDETECTED:
            analysis.defects.append(
                f"{t.path}::{t.function} -> {t.body}: undetected in place but "
                f"{checked.verdict.value} on disk ({checked.detail})"
            )
            result.verdict = checked.verdict
            result.reason = f"{ON_DISK}: {checked.detail}"
        else:
            continue  # the in-place verdict (and what its run executed) stands
        # What the plain run executed: the verdict holds after an edit it did not reach.
        result.units, result.on_disk = checked.units, checked.units is not None
    return done


def _run_checks(
    root: Path,
    options: Options,
    checks: list[TransformationResult],
    timeouts: dict[Transformation, float],
    copies: int,
    job: Job,
) -> Iterator[tuple[TransformationResult, DiskVerdict]]:
    """Each check's plain run, ``copies`` at a time (each in a private copy of its own),
    yielded as they finish."""
    with contextlib.ExitStack() as stack:
        free: queue.Queue[PrivateCopy] = queue.Queue()
        for _ in range(copies):
            free.put(stack.enter_context(PrivateCopy(root, options.python, options.pytest_args)))

        def check(result: TransformationResult) -> DiskVerdict:
            job.check()
            t = result.transformation
            copy = free.get()
            try:
                timeout = min(DISK_TIMEOUT_CAP, DISK_TIMEOUT_BASE + timeouts.get(t, 0.0))
                return copy.run(t, result.tests, timeout)
            finally:
                free.put(copy)

        with ThreadPoolExecutor(copies, thread_name_prefix="reks-disk") as threads:
            futures = {threads.submit(check, result): result for result in checks}
            try:
                for future in as_completed(futures):
                    yield futures[future], future.result()
            finally:
                for future in futures:
                    future.cancel()


def _key(result: TransformationResult) -> str:
    return f"{result.transformation.path}::{result.transformation.function}"
