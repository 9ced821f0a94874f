"""The real projects the test-factoring benchmarks run on, and the steps both share: install
a project from its sdist, find its slowest passing tests, pick a boundary for each from
reks's suggestions, factor them.

Each project's slow tests spend their time in an environment a boundary can replace:
``diskcache`` in ``sqlite3`` and in ``time.sleep`` past its entries' expiry (its tests that
make thousands of sqlite calls are refused: such a call costs sqlite a few microseconds of
CPU, about what replay spends answering it, and loading and ordering the transcript costs
more; ``test_integrity_check``, 11258 calls: 60 ms of CPU in the system test's call, 60 ms
in its replay's call after 80 ms of setup), ``dunamai`` in ``git`` child processes
(``subprocess``) and in ``time.sleep`` between commits. ``tenacity``'s slowest tests are
CPU-bound (random waits checked statistically): reks suggests ``fractions`` or
``concurrent`` there and factoring refuses them (T draws random numbers, so the factored
test does not pass on unchanged code): the table's case where no useful boundary exists.
``requests`` is tested against a local HTTP server (``pytest-httpbin`` serves httpbin from
a thread of the test process, on fixed loopback ports): its slow tests wait for that
server below ``urllib3``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from sdist import fetch_sdist

from lsp_server.factoring.factor import FactorResult, factor_tests, suggest_boundaries
from lsp_server.factoring.runner import RunError, run_pytest
from lsp_server.project import Project


@dataclass(frozen=True)
class BenchProject:
    """One row of the table: where the project comes from and what its tests need."""

    name: str
    requirement: str  # ``name==version``, installed from its sdist
    test_dependencies: list[str]
    tests: list[str]  # test files or folders, relative to the project root
    tools: list[str] = field(default_factory=list)  # programs the tests run from PATH
    venv_on_path: bool = False  # the project's own console scripts must be on PATH
    environment: dict[str, str] = field(default_factory=dict)  # set for the project's tests


PROJECTS: dict[str, BenchProject] = {
    p.name: p
    for p in (
        BenchProject("diskcache", "diskcache==5.6.3", ["pytest"], ["tests/test_core.py"]),
        BenchProject(
            "dunamai",
            "dunamai==1.26.5",
            ["pytest", "packaging"],
            ["tests/integration"],
            tools=["git"],
        ),
        BenchProject(
            "setuptools-scm",
            "setuptools-scm==8.1.0",
            ["pytest", "packaging", "setuptools", "rich", "build", "wheel"],
            ["testing/test_git.py"],
            tools=["git"],
        ),
        BenchProject("tenacity", "tenacity==9.2.1", ["pytest"], ["tests/test_tenacity.py"]),
        BenchProject(
            "requests",
            "requests==2.34.2",
            [
                "pytest",
                "pytest-httpbin==2.1.0",
                "httpbin~=0.10.0",
                "trustme",
                "pysocks",
                "urllib3",
                "idna",
                "charset-normalizer",
                "certifi",
            ],
            ["tests/test_requests.py"],
            # The local server's ports, fixed (on loopback): with a free port chosen per
            # session, every URL in a transcript names a port the replay's server lacks.
            environment={"HTTPBIN_HTTP_PORT": "48917", "HTTPBIN_HTTPS_PORT": "48918"},
        ),
    )
}


def selected(name: str | None) -> list[BenchProject]:
    """The table rows ``--project NAME`` picks (all of them without a name)."""
    if name is None:
        return list(PROJECTS.values())
    if name not in PROJECTS:
        raise SystemExit(f"unknown project {name!r}; known: {', '.join(PROJECTS)}")
    return [PROJECTS[name]]


def prepare(bench: BenchProject, work: Path) -> Project:
    """A fresh copy of the project under ``work/NAME`` with its own ``.venv`` (the interpreter
    reks runs its tests in); PATH set up as the project's tests expect."""
    missing = [tool for tool in bench.tools if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"{bench.name}: its tests need {', '.join(missing)} on PATH")
    home = work / bench.name
    home.mkdir(parents=True, exist_ok=True)
    pristine = fetch_sdist(bench.requirement, home)
    root = home / "project"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(pristine, root)
    venv = home / "venv"
    python = str(venv / "bin" / "python")
    if not venv.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [python, "-m", "pip", "install", "-q"]
        subprocess.run([*pip, *bench.test_dependencies], check=True)
    install = [python, "-m", "pip", "install", "-q", "--no-deps", "-e", str(root)]
    subprocess.run(install, check=True)
    (root / ".venv").symlink_to(venv)
    # An activated virtualenv (reks's own) would win over the project's .venv as the
    # interpreter of its tests: requests' then lacked urllib3.
    os.environ.pop("VIRTUAL_ENV", None)
    # A value already set wins: two benchmarks running at once need their own ports.
    os.environ.update({k: os.environ.get(k, v) for k, v in bench.environment.items()})
    if bench.venv_on_path:  # as in an activated virtualenv
        os.environ["PATH"] = os.pathsep.join([str(venv / "bin"), os.environ.get("PATH", "")])
    return Project.at(root)


def slowest(project: Project, bench: BenchProject, count: int) -> list[tuple[str, float]]:
    """The ``count`` slowest passing tests with their plain-run durations."""
    plain = run_pytest(project, bench.tests, {"time": True})["tests"]
    passing = [(n, e["duration_s"]) for n, e in plain.items() if e["outcome"] == "passed"]
    return sorted(passing, key=lambda pair: -pair[1])[:count]


MAJOR_SHARE = 0.25
"""A suggested external boundary joins the best one when it saves at least this share of
what the best one saves (dunamai's tests sleep between commits *and* run git: both are E).
A project module never joins: it would leave the code under test (requests' sessions module
beside urllib3)."""


def choose_boundaries(
    project: Project,
    nodeids: list[str],
    unsuggested: dict[str, str] | None = None,
    next_best: dict[str, list[str]] | None = None,
) -> dict[str, tuple[str, ...]]:
    """Test -> the boundaries reks suggests and does not refuse that save a major share of
    the test's time, best first (empty: none; ``unsuggested`` gets why; ``next_best`` the
    other suggestions, as a developer would pick the next one in the editor's list)."""
    chosen: dict[str, tuple[str, ...]] = {}
    for nodeid in nodeids:
        try:
            ranked = suggest_boundaries(project.root, nodeid)
        except RunError as exc:
            ranked, why = [], f"profiling failed: {str(exc)[:200]}"
        else:
            why = (
                f"{ranked[0].boundary} refused: {ranked[0].refused}"
                if ranked
                else "no time spent below the test's code"
            )
        usable = [c for c in ranked if not c.refused]
        if not usable and unsuggested is not None:
            unsuggested[nodeid] = why
        best = usable[0].saving_s if usable else 0.0
        joining = [
            c.boundary
            for c in usable[1:]
            if c.saving_s >= MAJOR_SHARE * best and c.kind == "external"
        ]
        chosen[nodeid] = tuple([usable[0].boundary, *joining] if usable else [])
        if next_best is not None:
            next_best[nodeid] = [c.boundary for c in usable[1:] if c.kind == "external"]
    return chosen


def factor_all(
    project: Project, chosen: dict[str, tuple[str, ...]], clock_in_e: bool = False
) -> list[FactorResult]:
    """Factor the tests that have boundaries, one ``factor_tests`` call per boundary set."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for nodeid, boundaries in chosen.items():
        if boundaries:
            groups.setdefault(boundaries, []).append(nodeid)
    results = []
    for boundaries, nodeids in groups.items():
        # refuses slower ones
        results += factor_tests(project.root, nodeids, list(boundaries), clock_in_e=clock_in_e)
    return results


@dataclass
class Factored:
    """One project's slowest tests, the boundary chosen for each, and what factoring gave."""

    candidates: list[tuple[str, float]]
    chosen: dict[str, tuple[str, ...]]
    results: list[FactorResult]
    unsuggested: dict[str, str] = field(default_factory=dict)
    """Test -> why reks suggested no boundary for it."""

    def pairs(self) -> dict[str, str]:
        """System test -> its factored test, for the tests that were factored."""
        return {
            r.test: r.factored_test
            for r in self.results
            if r.status == "factored" and r.factored_test
        }


def factor_slowest(
    project: Project, bench: BenchProject, count: int, clock_in_e: bool = False
) -> Factored:
    """Factor the ``count`` slowest passing tests across the boundaries reks suggests
    (``clock_in_e``: ``reks factor --clock-in-e``)."""
    candidates = slowest(project, bench, count)
    unsuggested: dict[str, str] = {}
    next_best: dict[str, list[str]] = {}
    chosen = choose_boundaries(project, [n for n, _ in candidates], unsuggested, next_best)
    results = factor_all(project, chosen, clock_in_e)
    again = {
        r.test: (next_best[r.test][0],)
        for r in results
        if r.status != "factored"
        and refusal_kind(r.reason) in AFTER_A_BAD_BOUNDARY
        and next_best.get(r.test)
    }
    if again:  # the next suggestion, for a boundary the capture showed to be a bad one
        retried = {r.test: r for r in factor_all(project, again, clock_in_e)}
        results = [retried.get(r.test, r) for r in results]
        for nodeid, boundaries in again.items():
            if retried[nodeid].status == "factored":
                chosen[nodeid] = boundaries
            else:
                retried[nodeid].reason += f" (after {'+'.join(chosen[nodeid])})"
    return Factored(candidates, chosen, results, unsuggested)


AFTER_A_BAD_BOUNDARY = (
    "transcript too big",
    "boundary refused at capture",
    "fails on unchanged code",
)
"""Refusals after which the next suggested boundary is tried: the first one was a bad
partition for this test (a transcript of pickled values, a child running project code, a
non-deterministic answer); a refusal for speed would be the same with a finer boundary."""


REFUSAL_KINDS = (
    ("not faster", ("not faster", "not clearly faster")),
    ("fails with the clock moved forward", ("wall clock",)),
    ("fails on unchanged code", ("does not pass on unchanged code",)),
    ("transcript too big", ("transcript would be",)),
    ("boundary refused at capture", ("boundary refused",)),
    ("system test does not pass", ("system test does not pass", "system test failed")),
)


def refusal_kind(reason: str) -> str:
    """The kind of a refusal reason, for a tally (``other`` when none matches)."""
    for kind, words in REFUSAL_KINDS:
        if any(word in reason for word in words):
            return kind
    return "other"
