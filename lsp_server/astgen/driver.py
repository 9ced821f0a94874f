"""Run every check of an ``engine-test``: generate the cases, spread them over worker
processes, and collect the results in case order (so the report is deterministic)."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from lsp_server.astgen.check import Checker, CheckResult
from lsp_server.astgen.gen import Labelled
from lsp_server.astgen.program import Case
from lsp_server.jobs import Job

DEFAULT_ENGINES = ("reks", "jedi")
CHUNK = 16


@dataclass(frozen=True)
class Config:
    bound: int = 2
    refactorings: tuple[str, ...] = ()
    generators: tuple[str, ...] = ()
    engines: tuple[str, ...] = DEFAULT_ENGINES
    jobs: int = 1
    inverse: bool = True
    limit: int | None = None
    timeout: float = 2.0
    select: (
        Callable[[list[tuple[str, Labelled[Case]]]], list[tuple[str, Labelled[Case]]]] | None
    ) = None
    """Chooses the cases to check among all generated (None: all, bounded-exhaustive); a
    module-level function, since the config goes to worker processes."""


@dataclass
class RunOutcome:
    config: Config
    cases: int
    results: list[CheckResult] = field(default_factory=list)
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time of the processes that checked (workers, or this process with one job)."""

    @property
    def checks(self) -> int:
        """Engine runs with all oracles (differential rows and invalid programs excluded)."""
        return sum(1 for r in self.results if "~" not in r.engine and r.engine != "generator")


Task = tuple[int, Case, tuple[tuple[str, str], ...]]

_worker_checker: Checker | None = None


def make_checker(config: Config) -> Checker:
    from lsp_server.astgen.engines import make_engine
    from lsp_server.astgen.program_runner import Runner

    engines = [make_engine(name) for name in config.engines]
    return Checker(engines, Runner(timeout=config.timeout), inverse=config.inverse)


def _worker_init(config: Config) -> None:
    global _worker_checker
    from multiprocessing import util

    _worker_checker = make_checker(config)
    util.Finalize(None, _worker_checker.close, exitpriority=10)


def _worker_run(tasks: list[Task]) -> tuple[list[CheckResult], float]:
    assert _worker_checker is not None
    return check_chunk(_worker_checker, tasks)


def check_chunk(checker: Checker, tasks: list[Task]) -> tuple[list[CheckResult], float]:
    """Every check of ``tasks`` by ``checker``, and the CPU seconds they took."""
    start = time.process_time()
    results: list[CheckResult] = []
    for index, case, labels in tasks:
        results.extend(checker.check(index, case, labels))
    return results, time.process_time() - start


def chunks(tasks: Sequence[Task], size: int) -> Iterator[list[Task]]:
    for start in range(0, len(tasks), size):
        yield list(tasks[start : start + size])


def generate(config: Config) -> list[tuple[str, Labelled[Case]]]:
    from lsp_server.astgen.generators import cases

    found = cases(config.bound, list(config.generators) or None, list(config.refactorings) or None)
    if config.select is not None:
        found = config.select(found)
    return found if config.limit is None else found[: config.limit]


def tasks_of(config: Config) -> list[Task]:
    """The generated cases as numbered tasks."""
    generated = generate(config)
    return [(i, item.value, item.labels) for i, (_, item) in enumerate(generated)]


def chunk_size(config: Config, tasks: Sequence[Task], workers: int) -> int:
    """Cases per task sent to a worker: a few tasks per worker, at most ``CHUNK`` cases."""
    return max(1, min(CHUNK, len(tasks) // (workers * 4) or 1))


def finish(outcome: RunOutcome) -> RunOutcome:
    """The results in case order, then engine order (a deterministic report)."""
    order = {name: i for i, name in enumerate(outcome.config.engines)}
    outcome.results.sort(key=lambda r: (r.index, order.get(r.engine, len(order)), r.engine))
    return outcome


def run(config: Config, job: Job | None = None) -> RunOutcome:
    """Check every generated case with every engine; ``job`` gets progress and may cancel."""
    job = job if job is not None else Job()
    tasks = tasks_of(config)
    outcome = RunOutcome(config, len(tasks))
    wall = time.perf_counter()
    job.report(0, len(tasks), "checking")
    if config.jobs <= 1:
        checker = make_checker(config)
        cpu = time.process_time()
        try:
            for done, (index, case, labels) in enumerate(tasks, 1):
                job.check()
                outcome.results.extend(checker.check(index, case, labels))
                job.report(done, len(tasks), "checking")
        finally:
            outcome.cpu_seconds = time.process_time() - cpu
            checker.close()
    else:
        # spawn: the workers start clean (no inherited threads or rope state).
        context = multiprocessing.get_context("spawn")
        size = chunk_size(config, tasks, config.jobs)
        with ProcessPoolExecutor(
            config.jobs, mp_context=context, initializer=_worker_init, initargs=(config,)
        ) as pool:
            done = 0
            futures = [pool.submit(_worker_run, chunk) for chunk in chunks(tasks, size)]
            try:
                for future in futures:
                    job.check()
                    results, cpu = future.result()
                    outcome.results.extend(results)
                    outcome.cpu_seconds += cpu
                    done += len({r.index for r in results}) or size
                    job.report(min(done, len(tasks)), len(tasks), "checking")
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
    outcome.wall_seconds = time.perf_counter() - wall
    return finish(outcome)


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
