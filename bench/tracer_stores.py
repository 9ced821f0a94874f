"""What the instrumented tracer (``REKS_TRACER=instrumented``) records against the profile
hook's recording: each test's dependencies must be the same or more (never fewer: selection
stays sound).

    python bench/tracer_stores.py --venv /tmp/v311 \
        --checkout /work/.mirror/pytoolz+toolz/repo \
        --checkout /work/.mirror/andialbrecht+sqlparse/repo

``--venv``: a venv of the Python to compare on (pytest and reks), run with ``pytest
--reks-all`` twice on the same checkout: ``REKS_TRACER=profile``, then ``instrumented``.
Prints per project the tests with fewer dependencies (each listed with what it lacks),
with more, and the total number of dependencies of each recording.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rts_overhead import _load
from rts_project import Project
from tracer_floor import checkout_arguments, checkout_projects

from lsp_server.rts.store import DependencyStore


def recorded(project: Project, tracer: str) -> dict[str, set[str]]:
    """Each test's dependencies after ``pytest --reks-all`` with ``REKS_TRACER=tracer``."""
    project.reset_stores()
    os.environ["REKS_TRACER"] = tracer
    try:
        run = project.pytest("--reks-all", listing=False)
    finally:
        os.environ.pop("REKS_TRACER", None)
    print(f"  {tracer}: {run.count} tests, rc={run.returncode}, cpu {run.cpu:.2f} s")
    with DependencyStore(project.root) as store:
        return store.dependency_keys(store.test_records())


def compare(project: Project) -> int:
    print(f"\n== {project.name}; load {_load()}")
    profile = recorded(project, "profile")
    instrumented = recorded(project, "instrumented")
    fewer = {t: profile[t] - instrumented.get(t, set()) for t in profile}
    fewer = {t: lacking for t, lacking in fewer.items() if lacking}
    more = sum(1 for t in profile if instrumented.get(t, set()) > profile[t])
    print(f"tests: {len(profile)} (profile hook), {len(instrumented)} (instrumented)")
    print(f"tests with fewer dependencies: {len(fewer)}; with more: {more}")
    print(
        f"dependencies in all: profile hook {sum(map(len, profile.values()))},"
        f" instrumented {sum(map(len, instrumented.values()))}"
    )
    for test, lacking in sorted(fewer.items())[:20]:
        print(f"  {test} lacks {sorted(lacking)[:8]}")
    missing = sorted(set(profile) - set(instrumented))
    if missing:
        print(f"  not recorded by the instrumented tracer: {missing[:10]}")
    return len(fewer) + len(missing)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    checkout_arguments(parser, Path("/tmp/reks-tracer-stores"))
    args = parser.parse_args()
    unsound = sum(compare(project) for project in checkout_projects(args))
    return 1 if unsound else 0


if __name__ == "__main__":
    raise SystemExit(main())
