"""Verdicts checked the plain way: the file rewritten in a private copy, the covering tests
run afresh. Import-time functions take that verdict (swapping code after import cannot see
the change); ``--verify N`` samples other undetected verdicts, and detected ones, to catch
defects of the in-place analysis either way."""

from __future__ import annotations

import contextlib
import os
import queue
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.on_disk import DiskVerdict, PrivateCopy
from lsp_server.extreme.pool import WorkerPool
from lsp_server.extreme.warm import lent
from lsp_server.jobs import Job

if TYPE_CHECKING:
    from lsp_server.extreme.analysis import Analysis, Options
    from lsp_server.extreme.warm import WarmPools

IMPORT_TIME = (
    "it ran while the project was imported (a decorator, a class body, a module-level call "
    "or a cached value), which swapping its code afterwards cannot change"
)
ON_DISK = "checked on disk"
"""In the reason of a result whose verdict the plain run on disk gave."""
BEFORE_IMPORT = "checked with the change applied before import"
"""In the reason of a result whose verdict a pre-import worker's run gave (``pre_import``)."""
DISK_TIMEOUT_CAP = 600.0


def spawn_pre_import(
    root: Path, options: Options, analysis: Analysis, warm: WarmPools | None
) -> WorkerPool | None:
    """Pre-import workers (``pre_import``) for the checks of ``check_on_disk``, spawned now
    so that they start Python and pytest while the transformations run in place; None
    when no function ran at import, the check is off, or the session of the last
    pre-import workers imported every file of those functions (they are checked the plain
    way on disk)."""
    if not analysis.import_time or not options.on_disk:
        return None
    jobs = options.jobs or os.cpu_count() or 1
    args = (options.python, options.pytest_args, options.collect_timeout)
    if warm is not None:
        files = {key.partition("::")[0] for key in analysis.import_time}
        if files <= warm.imported_before(root, jobs, options.python, options.pytest_args):
            return None
        return warm.take_pre_import(root, jobs, *args)
    pool = WorkerPool(root, jobs, *args, pre_import=True)
    pool.spawn()
    return pool


def check_on_disk(
    root: Path,
    options: Options,
    analysis: Analysis,
    planned: dict[int, tuple[Transformation, dict[str, Any]]],
    done: list[TransformationResult],
    job: Job,
    pre: tuple[WorkerPool | None, WarmPools | None] = (None, None),
) -> list[TransformationResult]:
    """The undetected verdicts of import-time functions checked with the change applied
    before the project is imported (on ``pre``'s pool, from ``spawn_pre_import``, given
    back to its warm pools or closed here; the plain way for a file its session imported),
    and ``options.verify`` others checked the plain way: the file rewritten in a private
    copy, the tests run afresh. An import-time function takes that verdict; any other
    disagreement is a defect."""
    pool, warm = pre
    with contextlib.ExitStack() as stack:
        if pool is not None:
            stack.enter_context(lent(pool, warm))
        return _checked(root, options, analysis, done, job, planned, pool)


def _checked(
    root: Path,
    options: Options,
    analysis: Analysis,
    done: list[TransformationResult],
    job: Job,
    planned: dict[int, tuple[Transformation, dict[str, Any]]],
    pool: WorkerPool | None,
) -> list[TransformationResult]:
    import_time = [
        r for r in done if r.verdict is Verdict.UNDETECTED and _key(r) in analysis.import_time
    ]
    sample = verify_sample(done, analysis.import_time, options.verify)
    analysis.defects += unexplained_detections(done)
    if not options.on_disk:
        for result in import_time:
            result.verdict = Verdict.SKIPPED
            result.reason = f"not analysable in place: {IMPORT_TIME}"
        import_time = []
    if not import_time and not sample:
        return done
    timeouts = {planned[i][0]: float(request["timeout"]) for i, (_, request) in planned.items()}
    if import_time and pool is not None:
        requests = {t: request for t, request in planned.values()}
        allowance = options.disk_timeout_base
        import_time = _before_import(pool, analysis, import_time, requests, allowance, job)
    checks = [*import_time, *sample]
    if not checks:
        return done
    job.report(0, len(checks), "checking on disk")
    copies = min(len(checks), options.jobs or os.cpu_count() or 1)
    tests = {id(r): _disk_tests(r, analysis.covering.get(_key(r), [])) for r in checks}
    runs = _run_checks(root, options, checks, tests, timeouts, copies, job)
    for count, (result, checked) in enumerate(runs, 1):
        t = result.transformation
        analysis.checked_on_disk += 1
        job.report(count, len(checks), f"{t.function}: {t.body} on disk")
        if result in import_time:
            result.verdict = checked.verdict
            result.reason = f"{IMPORT_TIME}; {ON_DISK}: {checked.detail}"
        elif _disagree(result.verdict, checked.verdict):
            # The in-place reason stays beside the disk's: the wrong verdict's cause.
            in_place = f"; in place: {result.reason}" if result.reason.strip() else ""
            analysis.defects.append(
                f"{t.path}::{t.function} -> {t.body}: {result.verdict.value} in place but "
                f"{checked.verdict.value} on disk ({checked.detail}){in_place}"
            )
            result.verdict, result.tests = checked.verdict, tests[id(result)]
            result.detected_by = None
            result.reason = f"{ON_DISK}: {checked.detail}{in_place}"
        else:
            continue  # the in-place verdict (and what its run executed) stands
        # What the plain run executed: the verdict holds after an edit it did not reach.
        result.units, result.on_disk = checked.units, checked.units is not None
    return done


def verify_sample(
    done: list[TransformationResult], import_time: set[str], size: int
) -> list[TransformationResult]:
    """The verdicts ``--verify size`` checks the plain way: the first ``size`` undetected
    ones (of functions that did not run at import: those are checked anyway), ``size``
    detected ones and ``size`` timeouts spread over them, a wrong detection (a timeout
    that came from the machine, not the transformation) hiding a pseudo-tested function
    as surely as a wrong undetected verdict makes a false alarm."""
    size = max(0, size)
    undetected = [r for r in done if r.verdict is Verdict.UNDETECTED and _key(r) not in import_time]
    sample = undetected[:size]
    for verdict in (Verdict.DETECTED, Verdict.TIMEOUT):
        found = [r for r in done if r.verdict is verdict]
        sample += found[:: max(1, len(found) // size) if size else 1][:size]
    return sample


def unexplained_detections(done: list[TransformationResult]) -> list[str]:
    """A defect for each detected verdict that does not say which test failed and how."""
    return [
        f"{r.transformation.path}::{r.transformation.function} -> {r.transformation.body}: "
        "detected without a reason"
        for r in done
        if r.verdict is Verdict.DETECTED and not r.reason.strip()
    ]


def _disagree(in_place: Verdict, on_disk: Verdict) -> bool:
    """Whether the plain run contradicts the in-place verdict: a test failed (or hung)
    on disk where none did in place, or every test passed on disk where one failed in
    place. A plain run that could not run (``error``) contradicts nothing."""
    if in_place is Verdict.UNDETECTED:
        return on_disk is not Verdict.UNDETECTED
    detected = in_place in (Verdict.DETECTED, Verdict.TIMEOUT)
    return detected and on_disk is Verdict.UNDETECTED


def _disk_tests(result: TransformationResult, covering: Sequence[str]) -> list[str]:
    """The tests of a plain run: those the in-place run ran, in its order, then (for a
    detection, which stopped at its first failure, or a timeout, which names none) the
    other covering tests, so that the plain run's verdict stands for all of them when it
    replaces the in-place one."""
    if result.verdict not in (Verdict.DETECTED, Verdict.TIMEOUT):
        return list(result.tests)
    return [*result.tests, *(t for t in covering if t not in result.tests)]


def _before_import(
    pool: WorkerPool,
    analysis: Analysis,
    results: list[TransformationResult],
    requests: dict[Transformation, dict[str, Any]],
    allowance: float,
    job: Job,
) -> list[TransformationResult]:
    """Check ``results`` on the pre-import workers of ``pool``; those of files their
    session had imported come back unchecked (for the plain way)."""
    pool.start(job)
    mine = [r for r in results if r.transformation.path not in pool.preloaded]
    pool.prepare(sorted({r.transformation.path for r in mine}))
    job.report(0, len(mine), "checking before import")
    checks = (
        before_import_request(i, requests[r.transformation], r.tests, allowance)
        for i, r in enumerate(mine)
    )
    for count, reply in enumerate(pool.run_all(checks, job), 1):
        result = mine[reply["id"]]
        t = result.transformation
        analysis.checked_on_disk += 1
        job.report(count, len(mine), f"{t.function}: {t.body} before import")
        take_reply(result, reply)
    return [r for r in results if r not in mine]


def before_import_request(
    ident: int,
    request: dict[str, Any],
    tests: Sequence[str],
    allowance: float,
    confirm: bool = False,
) -> dict[str, Any]:
    """The run of an in-place ``request`` on a pre-import worker, with ``tests``: the
    timeout of a plain run (a collection comes first: ``allowance`` seconds more); the
    deadlines per test (counted from the end of the collection) only when ``tests`` are
    the request's, in its order.
    ``confirm``: a detection stands only if the detecting test passes without the
    transformation (``pre_import``)."""
    timeout = min(DISK_TIMEOUT_CAP, allowance + float(request["timeout"]))
    check = {**request, "id": ident, "tests": list(tests), "timeout": timeout}
    if check["tests"] != list(request["tests"]):  # deadlines set for another order
        check["deadlines"] = []
        check.pop("basis", None)
    check["confirm"] = confirm
    return check


def take_reply(result: TransformationResult, reply: dict[str, Any]) -> None:
    """``result`` with the verdict of a pre-import worker's ``reply``."""
    result.verdict = Verdict(reply["verdict"])
    result.detected_by = reply.get("detected_by")
    result.tests = list(reply.get("tests", result.tests))
    detail = reply.get("reason") or (
        f"{result.detected_by} failed" if result.detected_by else "every test passed"
    )
    result.reason = f"{IMPORT_TIME}; {BEFORE_IMPORT}: {detail}"
    result.units = reply.get("units")
    result.on_disk = result.units is not None  # what that run executed


def _run_checks(
    root: Path,
    options: Options,
    checks: list[TransformationResult],
    tests: dict[int, list[str]],
    timeouts: dict[Transformation, float],
    copies: int,
    job: Job,
) -> Iterator[tuple[TransformationResult, DiskVerdict]]:
    """Each check's plain run of its ``tests`` (by ``id`` of the check), ``copies`` at a
    time (each in a private copy of its own), yielded as they finish."""
    with contextlib.ExitStack() as stack:
        free: queue.Queue[PrivateCopy] = queue.Queue()
        for _ in range(copies):
            free.put(stack.enter_context(PrivateCopy(root, options.python, options.pytest_args)))

        def check(result: TransformationResult) -> DiskVerdict:
            job.check()
            t = result.transformation
            copy = free.get()
            try:
                allowance = options.disk_timeout_base
                timeout = min(DISK_TIMEOUT_CAP, allowance + timeouts.get(t, 0.0))
                return copy.run(t, tests[id(result)], timeout)
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
