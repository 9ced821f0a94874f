"""Verdicts checked the plain way: the file rewritten in a private copy, the covering tests
run afresh. Import-time functions take that verdict (swapping code after import cannot see
the change); ``--verify N`` samples other undetected verdicts to catch defects of the
in-place analysis."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.on_disk import PrivateCopy
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
    job.report(0, len(import_time) + len(sample), "checking on disk")
    with PrivateCopy(root, options.python, options.pytest_args) as copy:
        for count, result in enumerate([*import_time, *sample], 1):
            job.check()
            t = result.transformation
            timeout = min(DISK_TIMEOUT_CAP, DISK_TIMEOUT_BASE + timeouts.get(t, 0.0))
            checked = copy.run(t, result.tests, timeout)
            analysis.checked_on_disk += 1
            job.report(count, len(import_time) + len(sample), f"{t.function}: {t.body} on disk")
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
    return done


def _key(result: TransformationResult) -> str:
    return f"{result.transformation.path}::{result.transformation.function}"
