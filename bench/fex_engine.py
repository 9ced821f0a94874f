"""Bounded-exhaustive vs field-exhaustive ``reks engine-test`` on the same generators and bound:
programs checked, time, and failure groups found.

The groups are those of the bounded-exhaustive run (``astgen.report.group_failures``); the
field-exhaustive run finds a group when it checks one of the group's failing programs and the
same engine fails the same oracle on it (signatures themselves are relative to the programs
checked, so they are not compared directly). Kinds are coarser: (engine, refactoring,
generator, oracle) with at least one failure. Goal (issue 19): at least 90% of the groups
with at most 10% of the programs.

A group's signature is the smallest set of choices (labels) that only failing programs
show; the groups each suite finds and misses are counted by signature length. The
field-exhaustive row models each case as program objects (``fex.choices.object_fields``:
the request and the numbered, typed elements, with ``next`` and ``request`` fields); the
"FE choice points" row is the narrower model with the request as the only object. The
pairwise row (every two choices taken together, ``fex.choices.pairwise_cases``) is a
stronger reference point, not the criterion. reks's own engine has no failure groups left;
measure on raw rope (``--engines rope``).

What the groups the program-object model misses need (bound 2, rope, 6460 programs, 154
groups; offline selections over one bounded-exhaustive run, fex4): 41 of the 46 are extract
method on two statements, one bug each of rope's (``k``, bound on one branch of a ``while``
body, is not passed to the extracted function; ``i`` after two ``for ... break`` loops)
split into a group per first statement, because the ``nth`` label that locates the
selection depends on it; they need (first statement kind) x (selection inside the second
statement). 4 are a rename in ``classes`` needing three choices at once (member x relation x
renamed), 1 a move with a relative import as the last import. Models tried (programs, groups
found): program objects 636 (9.8%), 108; with ``next = None`` after the last element 717,
107; three-way and all-way choices for cases without elements 658, 112 and 684, 112; the
whole non-role vector of such cases 652, 112; elements typed by the selection
(site+depth / +from / +from,to / +jumps / +live-out,augmented) 728, 108 / 1197, 123 /
2266, 132 / 966, 117 / 792, 108; an element field for the selection (from,to,nth / +depth /
from,to / from,nth) 1292, 122 / 1390, 129 / 1073, 113 / 824, 116; elements x pairs of
request choices 867, 109; the AST statement the refactoring starts at, numbered in preorder
(statements / +end / all generators) 674, 113 / 672, 111 / 685, 109; other greedy
tie-breaks 636, 99-108; each richer model cut at 10% of the programs 646, 92-95;
pairwise 696, 83. No model reached 90% of the groups within 10%: the statement groups need
one program per (first statement, failing selection), about 40 programs a model cannot
single out from the choices without naming the failing selections.

    python bench/fex_engine.py [--bound 2] [--engines rope] [--jobs 2] [--generator G]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from lsp_server.astgen import driver, report
from lsp_server.fex.choices import choice_point_cases, field_exhaustive_cases, pairwise_cases

SUITES = (
    ("bounded-exhaustive", None),
    ("field-exhaustive", field_exhaustive_cases),
    ("FE choice points", choice_point_cases),
    ("pairwise choices", pairwise_cases),
)


def _failures(outcome: driver.RunOutcome, cases: list) -> set[tuple]:
    """(engine, oracle, generator, labels) of every failure."""
    return {
        (r.engine, f.oracle, cases[r.index][0], cases[r.index][1].labels)
        for r in outcome.results
        for f in r.findings
    }


def _found(groups: list, be_cases: list, cases: list, outcome: driver.RunOutcome) -> list[bool]:
    """Per BE group: whether this suite checked one of its failing programs and failed it."""
    failures = _failures(outcome, cases)
    return [
        bool(
            failures
            & {
                (r.engine, group.oracle, be_cases[r.index][0], be_cases[r.index][1].labels)
                for r in group.members
            }
        )
        for group in groups
    ]


def _by_length(groups: list, found: list[bool], wanted: bool) -> str:
    pairs = zip(groups, found, strict=True)
    counts = Counter(len(group.signature) for group, hit in pairs if hit == wanted)
    return " ".join(f"{length}:{counts[length]}" for length in sorted(counts)) or "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bound", type=int, default=2)
    parser.add_argument("--engines", default="rope")
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
    for name, select in SUITES:
        config = driver.Config(**{**base.__dict__, "select": select})
        start = time.perf_counter()
        cases = driver.generate(config)
        outcome = driver.run(config)
        runs[name] = (cases, outcome, time.perf_counter() - start)
    be_cases, be_outcome, be_seconds = runs["bounded-exhaustive"]
    groups = report.group_failures(be_outcome.results, be_cases)
    print(f"bound {args.bound}, engines {args.engines}, generators {args.generator or 'all'}")
    print(
        f"{'suite':20} {'programs':>9} {'seconds':>8} {'groups':>7} {'kinds':>6}  "
        "found / missed groups by signature length"
    )
    be_kinds = _kinds(be_outcome)
    for name, (cases, outcome, seconds) in runs.items():
        found = _found(groups, be_cases, cases, outcome)
        print(
            f"{name:20} {len(cases):9} {seconds:8.1f} {sum(found):7} "
            f"{len(_kinds(outcome) & be_kinds):6}  "
            f"{_by_length(groups, found, True)} / {_by_length(groups, found, False)}"
        )
        if name != "bounded-exhaustive":
            share = 100.0 * sum(found) / len(groups) if groups else 100.0
            print(
                f"  {name}: {share:.0f}% of the groups with "
                f"{100.0 * len(cases) / len(be_cases):.1f}% of the programs "
                f"({be_seconds / seconds:.1f}x faster)"
            )


def _kinds(outcome: driver.RunOutcome) -> set[tuple]:
    return {(r.engine, r.kind, r.generator, f.oracle) for r in outcome.results for f in r.findings}


if __name__ == "__main__":
    main()
