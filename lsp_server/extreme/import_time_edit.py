"""The editor's quick re-analysis of an edited function that ran at import, on the
pre-import workers alone.

The warm in-place workers hold what the function's old code computed at import, so they
cannot analyse it after the edit (``warm`` starts them afresh at their next use, a new
Python and a whole collection: seconds). When the re-analysis is only of such functions
(``reuse.edited_rerun``: their remembered tests, timeouts and bodies), every
transformation runs on a pre-import worker instead, which imports the edited project
anew in each run; a detection stands only if the detecting test passes on the edited
code without the transformation (as ``reuse.confirm_detections`` asks of the in-place
runs).

Not for a file the pre-import workers' session imported (a conftest importing the
project): the import hook of their child would never see it imported and its tests would
run the code untransformed. Such a re-analysis takes the ordinary path (in place on
restarted workers, the undetected verdicts checked the plain way on disk).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsp_server.extreme.disk_check import before_import_request, spawn_pre_import, take_reply
from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.reuse import Work, plan_reruns, record_results
from lsp_server.extreme.warm import lent
from lsp_server.jobs import Job

if TYPE_CHECKING:
    from lsp_server.extreme.analysis import Analysis, Options
    from lsp_server.extreme.warm import WarmPools


def edited_at_import(options: Options, work: Work) -> bool:
    """The quick re-analysis of edited functions that ran at import, and nothing else."""
    return (
        bool(options.only and options.on_disk and work.reruns)
        and not work.todo
        and all(r.edited and r.entry.get("import_time") for r in work.reruns)
    )


def run_before_import(
    root: Path,
    options: Options,
    job: Job,
    analysis: Analysis,
    work: Work,
    warm: WarmPools | None,
) -> bool:
    """Run the stale transformations of ``work.reruns`` on pre-import workers; False,
    having run nothing, when their session imported one of the functions' files (see the
    module docstring)."""
    planned: dict[int, tuple[Transformation, dict[str, Any]]] = {}
    plan_reruns(work.reruns, planned, (options.timeout_base, options.timeout_factor))
    analysis.import_time |= {r.function.key for r in work.reruns}
    pool = spawn_pre_import(root, options, analysis, warm)
    if pool is None:  # their session imports the files (see the module docstring)
        return False
    done: dict[int, TransformationResult] = {}
    observed: set[str] = set()  # the detecting tests run on the edited code
    files = sorted({t.path for t, _ in planned.values()})
    with lent(pool, warm):
        pool.start(job)
        if pool.preloaded.intersection(files):
            return False
        pool.prepare(files)
        requests = (
            before_import_request(
                i, request, request["tests"], options.disk_timeout_base, confirm=True
            )
            for i, (_, request) in planned.items()
        )
        job.report(0, len(planned), "running transformations before import")
        for reply in pool.run_all(requests, job):
            t = planned[reply["id"]][0]
            result = done[reply["id"]] = TransformationResult(t, Verdict.SKIPPED)
            result.duration = float(reply.get("duration", 0.0))
            if reply.get("confirmed"):
                observed.add(reply["confirmed"])
            take_reply(result, reply)
            job.report(len(done), len(planned), f"{t.function}: {t.body} before import")
    analysis.run_count = analysis.checked_on_disk = len(done)
    analysis.observed_tests = len(observed)
    record_results(analysis.covering, work, [done[i] for i in sorted(done)])
    return True
