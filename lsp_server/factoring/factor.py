"""Factor one test: capture it across a boundary, emit the factored test, check it.

``factor_test`` is the entry point for the CLI and the editor ("Factor this test"): it runs
the system test once plainly (its time) and once under capture, writes the transcript and the
factored test, runs the factored test once (it must pass: a divergence on unchanged code
means T is non-deterministic or the capture is incomplete), and keeps the factored test only
when its replay is clearly faster than the system test, timed side by side (``keep``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lsp_server.factoring import emit, keep, transcript
from lsp_server.factoring.later import check_later, failure
from lsp_server.factoring.runner import RunError, run_pytest
from lsp_server.factoring.suggest import Candidate, rank
from lsp_server.jobs import Job
from lsp_server.project import Project


@dataclass
class FactorResult:
    """What factoring one test with one boundary gave."""

    test: str
    boundaries: list[str]
    status: str = "refused"
    """``factored``, or ``refused`` (``reason`` says why)."""
    reason: str = ""
    factored_test: str | None = None
    """Node id of the factored test."""
    transcript: str | None = None
    calls: int = 0
    transcript_bytes: int = 0
    system_s: float = 0.0
    capture_s: float = 0.0
    replay_s: float = 0.0
    divergence: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    """What may make a kept factored test fail on unchanged code later (T reads the clock)."""

    @property
    def speedup(self) -> float:
        return self.system_s / self.replay_s if self.replay_s > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "speedup": round(self.speedup, 2)}


def factor_test(
    root: str | Path,
    nodeid: str,
    boundaries: list[str],
    job: Job | None = None,
    python: str | None = None,
    keep_slower: bool = False,
    max_transcript_bytes: int = transcript.DEFAULT_MAX_BYTES,
    clock_in_e: bool = False,
) -> FactorResult:
    """Factor ``nodeid`` with ``boundaries`` (module or class names) as E; a transcript
    larger than ``max_transcript_bytes`` refuses the boundary; ``clock_in_e``: see
    ``factor_tests``."""
    return factor_tests(
        root, [nodeid], boundaries, job, python, keep_slower, max_transcript_bytes, clock_in_e
    )[0]


def factor_tests(
    root: str | Path,
    nodeids: list[str],
    boundaries: list[str],
    job: Job | None = None,
    python: str | None = None,
    keep_slower: bool = False,
    max_transcript_bytes: int = transcript.DEFAULT_MAX_BYTES,
    clock_in_e: bool = False,
) -> list[FactorResult]:
    """Factor several tests with the same boundary in a few pytest runs (plain, capture,
    checks of the factored tests) rather than a few per test. A factored test that fails
    when replayed with the wall clock moved forward is refused, or with ``clock_in_e``
    (the user's consent) replays T's clock from the capture's moment (``later.check_later``)."""
    job = job or Job()
    project = Project.at(root, python)
    results = {nodeid: FactorResult(nodeid, list(boundaries)) for nodeid in nodeids}

    def factor_group(group: dict[str, FactorResult]) -> None:
        _factor(project, group, job, keep_slower, max_transcript_bytes, clock_in_e)

    try:
        factor_group(results)
        _with_the_clock_in_e(results, factor_group)
    except RunError as exc:
        for result in results.values():
            if result.status != "factored" and not result.reason:
                result.reason = f"pytest did not run: {exc}"
    return [results[nodeid] for nodeid in nodeids]


def _with_the_clock_in_e(
    results: dict[str, FactorResult], factor_group: Callable[[dict[str, FactorResult]], None]
) -> None:
    """Factor once more (``factor_group``), with the clock's module in E too, each test
    whose factored test failed on unchanged code while T read the wall clock: T that writes
    a reading into what it hands E (diskcache's eviction policies put ``time.time()`` into a
    statement's text) hands the replay a reading the transcript cannot hold. With the clock
    in E, T gets the capture's readings and stays under test; the result says so."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for nodeid, result in results.items():
        if result.status == "factored" or not result.details.get("fails_unchanged"):
            continue
        clocks = clock_modules(result.details.get("clock_reads") or [])
        extra = [m for m in clocks if m not in result.boundaries]
        if extra:
            groups.setdefault((*result.boundaries, *extra), []).append(nodeid)
    for boundaries, nodeids in groups.items():
        # the system tests passed in the first round: their plain times stand
        plain_s = {n: results[n].details.get("plain_run_s", results[n].system_s) for n in nodeids}
        again = {n: FactorResult(n, list(boundaries), system_s=plain_s[n]) for n in nodeids}
        factor_group(again)
        for nodeid, result in again.items():
            before = results[nodeid]
            added = ", ".join(boundaries[len(before.boundaries) :])
            if result.status == "factored":
                result.warnings.append(
                    f"factored with the clock ({added}) in E: with {', '.join(before.boundaries)}"
                    f" alone its replay failed on unchanged code ({before.reason[:200]})"
                )
                results[nodeid] = result
            else:
                before.reason += f"; with the clock ({added}) in E too: {result.reason}"


def clock_modules(reads: list[str]) -> list[str]:
    """The modules of the clocks T read (``app/x.py:3 time.time`` -> ``time``)."""
    found = []
    for read in reads:
        module = read.rpartition(" ")[2].partition(".")[0]
        if module and module not in found:
            found.append(module)
    return found


def _factor(
    project: Project,
    results: dict[str, FactorResult],
    job: Job,
    keep_slower: bool,
    max_transcript_bytes: int,
    clock_in_e: bool,
) -> None:
    boundaries = next(iter(results.values())).boundaries
    passing = [nodeid for nodeid, result in results.items() if result.system_s > 0]
    unknown = [nodeid for nodeid in results if nodeid not in passing]
    job.report(0, 4, "running the system tests")
    plain = run_pytest(project, unknown, {"time": True}, job)["tests"] if unknown else {}
    for nodeid in unknown:
        result, entry = results[nodeid], plain.get(nodeid) or {}
        if entry.get("outcome") != "passed":
            result.reason = f"the system test does not pass ({entry.get('outcome', 'not found')})"
        else:
            result.system_s = entry["duration_s"]
            passing.append(nodeid)
    if not passing:
        return
    job.report(1, 4, f"capturing across {', '.join(boundaries)}")
    request = {
        "capture": True,
        "tests": passing,
        "boundaries": boundaries,
        "max_transcript_bytes": max_transcript_bytes,
    }
    captured = run_pytest(project, passing, request, job)
    written: dict[str, emit.FactoredFiles] = {}
    for nodeid in passing:
        summary = captured.get("captures", {}).get(nodeid) or {}
        entry = captured["tests"].get(nodeid, {})
        files = _capture_result(project, results[nodeid], summary, entry)
        if files is not None:
            written[nodeid] = files
    if written:
        job.report(3, 4, "checking the factored tests")
        _verify(project, written, results, keep_slower, job)
        kept = [(results[n], f) for n, f in written.items() if results[n].status == "factored"]
        check_later(project, kept, job, clock_in_e)


def _capture_result(
    project: Project, result: FactorResult, summary: dict[str, Any], entry: dict[str, Any]
) -> emit.FactoredFiles | None:
    """Judge one capture; write its transcript and factored test when it is usable."""
    result.capture_s = entry.get("duration_s", 0.0)
    if entry.get("outcome") != "passed":
        result.reason = "the system test failed under capture: " + entry.get("message", "")
        return None
    if summary.get("refusal"):
        result.reason = f"boundary refused: {summary['refusal']}"
        return None
    data = summary.get("transcript")
    if data is None:
        result.reason = "the capture wrote no transcript"
        return None
    result.calls = len(data["events"])
    if not data["events"]:
        result.reason = (
            f"the test never calls into {', '.join(result.boundaries)}: nothing to factor"
        )
        return None
    transcript.hash_unhashed(data, project.root)
    _note_clock_reads(result, summary.get("clock_reads") or [])
    return _write(project, result.test, summary, data, result)


def _note_clock_reads(result: FactorResult, reads: list[str]) -> None:
    result.details["clock_reads"] = reads
    warning = clock_warning(reads)
    if warning:
        result.warnings.append(warning)


def clock_warning(reads: list[str]) -> str | None:
    """The warning for T's wall-clock reads (``file:line name``) during capture."""
    if not reads:
        return None
    shown = ", ".join(reads[:3]) + (f" and {len(reads) - 3} more" if len(reads) > 3 else "")
    return (
        f"T reads the wall clock ({shown}) while its environment is replayed from the "
        "capture's moment: a test comparing the two can fail on unchanged code later"
    )


def suggest_boundaries(
    root: str | Path,
    nodeid: str,
    job: Job | None = None,
    python: str | None = None,
    max_transcript_bytes: int = transcript.DEFAULT_MAX_BYTES,
) -> list[Candidate]:
    """Boundaries for ``nodeid`` ranked by expected saving (refused ones last, with why),
    from one profiled run of the test."""
    project = Project.at(root, python)
    (job or Job()).report(0, 1, f"profiling {nodeid}")
    output = run_pytest(project, [nodeid], {"profile": True, "tests": [nodeid]}, job)
    entry = output["tests"].get(nodeid) or {}
    if entry.get("outcome") != "passed":
        raise RunError(f"{nodeid} does not pass ({entry.get('outcome', 'not found')})")
    return rank(output.get("profiles", {}).get(nodeid, []), max_transcript_bytes)


def _write(
    project: Project,
    nodeid: str,
    summary: dict[str, Any],
    data: dict[str, Any],
    result: FactorResult,
) -> emit.FactoredFiles | None:
    shape = summary["test"]
    files = emit.paths_for(Path(shape["file"]), shape)
    try:
        text = emit.render(nodeid, shape, files, result.boundaries, result.calls)
    except emit.EmitError as exc:
        result.reason = str(exc)
        return None
    data["root"] = os.path.relpath(project.root, files.transcript.parent)
    data["system_s"] = round(result.system_s, 6)
    transcript.save(files.transcript, data)
    from lsp_server.project.text import write_atomic

    write_atomic(files.test, text)
    result.transcript = project.rel(files.transcript) or str(files.transcript)
    result.transcript_bytes = files.transcript.stat().st_size
    test_rel = project.rel(files.test) or str(files.test)
    result.factored_test = emit.factored_nodeid(test_rel, shape)
    return files


def _verify(
    project: Project,
    written: dict[str, emit.FactoredFiles],
    results: dict[str, FactorResult],
    keep_slower: bool,
    job: Job,
) -> None:
    """Run the factored tests (beside their system tests, in interleaved rounds, unless
    ``keep_slower``) and keep the ones that pass and are faster (``keep.rejection``)."""
    pairs = {n: results[n].factored_test or "" for n in written}
    timings: dict[str, keep.Timings] = {}
    if keep_slower:
        replayed = run_pytest(project, list(pairs.values()), {"time": True}, job)["tests"]
    else:
        replayed, timings = keep.timed(project, pairs, job)
    for nodeid, files in written.items():
        result = results[nodeid]
        entry = replayed.get(result.factored_test or "", {})
        result.replay_s = entry.get("duration_s", 0.0)
        result.details["replayed_calls"] = entry.get("replayed_calls", 0)
        reason = ""
        if entry.get("outcome") != "passed":
            result.divergence = entry.get("divergence")
            reason = f"{_FAILS_UNCHANGED}: {failure(entry)}"
        result.details["fails_unchanged"] = bool(reason)
        if not reason and nodeid in timings:
            result.details["plain_run_s"] = result.system_s
            result.system_s, result.replay_s = timings[nodeid].system_s, timings[nodeid].factored_s
            result.details["side_by_side"] = timings[nodeid].to_json()
            reason = keep.rejection(timings[nodeid], replayed.get(nodeid, {}), result.calls)
        if reason:
            result.reason = reason
            files.remove()
            result.factored_test = result.transcript = None
        else:
            result.status = "factored"


_FAILS_UNCHANGED = "the factored test does not pass on unchanged code (non-deterministic T?)"


@dataclass(frozen=True)
class StaleTest:
    """A factored test whose transcript no longer describes E, or (``factored_test_warnings``)
    one that may fail on unchanged code later: for a diagnostic."""

    factored_test: str
    """Root-relative path of the factored test file."""
    original: str
    reason: str


def stale_factored_tests(root: str | Path) -> list[StaleTest]:
    """The factored tests under ``root`` whose environment changed since capture: skipped
    when run, to be recaptured (``reks factor ORIGINAL``)."""
    project = Project.at(root)
    found = []
    for path, transcript_path, data in _factored_tests(project):
        rel = project.rel(path) or str(path)
        if isinstance(data, Exception):
            found.append(StaleTest(rel, "?", f"no transcript: {data}"))
            continue
        verdict = transcript.staleness(data, (transcript_path.parent / data["root"]).resolve())
        if verdict.stale:
            found.append(StaleTest(rel, data["test"], verdict.reason()))
    return found


def factored_test_warnings(root: str | Path) -> list[StaleTest]:
    """The warnings of the factored tests under ``root``, from their transcripts (T read
    the wall clock during capture)."""
    project = Project.at(root)
    found = []
    for path, _, data in _factored_tests(project):
        if isinstance(data, Exception):
            continue  # a stale test's diagnostic says so
        warning = clock_warning(data.get("t_clock_reads") or [])
        if warning:
            found.append(StaleTest(project.rel(path) or str(path), data["test"], warning))
    return found


def _factored_tests(project: Project) -> Iterator[tuple[Path, Path, dict[str, Any] | Exception]]:
    """Each factored test file of the project, its transcript's path, and the transcript
    (or why it could not be read)."""
    for path in sorted(project.python_files()):
        if not path.name.startswith("test_factored__"):
            continue
        transcript_path = path.with_suffix(".transcript.json")
        try:
            data: dict[str, Any] | Exception = transcript.load(transcript_path)
        except (OSError, ValueError) as exc:
            data = exc
        yield path, transcript_path, data
