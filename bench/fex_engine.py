"""Bounded-exhaustive vs field-exhaustive ``reks engine-test`` on the same generators and bound:
programs checked, time, and failure groups found.

The groups are those of the bounded-exhaustive run (``astgen.report.group_failures``); the
field-exhaustive run finds a group when it checks one of the group's failing programs and the
same engine fails the same oracle on it (signatures themselves are relative to the programs
checked, so they are not compared directly). Kinds are coarser: (engine, refactoring,
generator, oracle) with at least one failure. Goal (issue 19): at least 90% of the groups
with at most 10% of the programs.

    python bench/fex_engine.py [--bound 2] [--engines reks,jedi] [--jobs 2] [--generator G]
"""

from __future__ import annotations

import argparse
import time

from lsp_server.astgen import driver, report
from lsp_server.fex.choices import field_exhaustive_cases


def _failures(outcome: driver.RunOutcome, cases: list) -> set[tuple]:
    """(engine, oracle, generator, labels) of every failure."""
    return {
        (r.engine, f.oracle, cases[r.index][0], cases[r.index][1].labels)
        for r in outcome.results
        for f in r.findings
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bound", type=int, default=2)
    parser.add_argument("--engines", default="reks,jedi")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--generator", action="append")
    args = parser.parse_args()
    base = driver.Config(
        bound=args.bound,
        engines=tuple(args.engines.split(",")),
        jobs=args.jobs,
        generators=tuple(args.generator or ()),
    )
    runs = {}
    for name, select in (
        ("bounded-exhaustive", None),
        ("field-exhaustive", field_exhaustive_cases),
    ):
        config = driver.Config(**{**base.__dict__, "select": select})
        start = time.perf_counter()
        cases = driver.generate(config)
        outcome = driver.run(config)
        runs[name] = (cases, outcome, time.perf_counter() - start)
    be_cases, be_outcome, be_seconds = runs["bounded-exhaustive"]
    fe_cases, fe_outcome, fe_seconds = runs["field-exhaustive"]
    groups = report.group_failures(be_outcome.results, be_cases)
    fe_failures = _failures(fe_outcome, fe_cases)
    found = 0
    for group in groups:
        members = {
            (r.engine, group.oracle, be_cases[r.index][0], be_cases[r.index][1].labels)
            for r in group.members
        }
        found += bool(members & fe_failures)
    kinds = [
        {(r.engine, r.kind, r.generator, f.oracle) for r in o.results for f in r.findings}
        for o in (be_outcome, fe_outcome)
    ]
    print(f"bound {args.bound}, engines {args.engines}, generators {args.generator or 'all'}")
    print(f"{'suite':20} {'programs':>9} {'seconds':>8} {'groups':>7} {'kinds':>6}")
    print(
        f"{'bounded-exhaustive':20} {len(be_cases):9} {be_seconds:8.1f} {len(groups):7} "
        f"{len(kinds[0]):6}"
    )
    print(
        f"{'field-exhaustive':20} {len(fe_cases):9} {fe_seconds:8.1f} {found:7} "
        f"{len(kinds[1] & kinds[0]):6}"
    )
    share = 100.0 * found / len(groups) if groups else 100.0
    print(
        f"field-exhaustive: {share:.0f}% of the groups with "
        f"{100.0 * len(fe_cases) / len(be_cases):.1f}% of the programs "
        f"({be_seconds / fe_seconds:.1f}x faster)"
    )


if __name__ == "__main__":
    main()
