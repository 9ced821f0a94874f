"""Bounded-exhaustive vs field-exhaustive ``reks engine-test`` on the same generators and bound:
programs checked, time, and distinct failures found.

**What a distinct failure is.** Issue 19's goal is at least 90% of the distinct failure
signatures with at most 10% of the programs. The measure that goal comes from is the
paper's, and the paper counts bugs: its refactoring table reports "bugs found", "computed
examining the refactorings outputs helped by astgen's oracles" (Ponzio et al., FSE 2016,
section 5), as ASTGen did: "Since our approach is exhaustive, the oracles report many
failures for each unique bug. This means, for example, that we only reported one unique bug
for the 40 variations caught by the Differential oracle for RenameField" (Daniel et al.,
FSE 2007, section 6.4). A distinct failure is a fault of the engine; the programs around it
are its variations. Our group signature (below) is not that: it is the set of program
choices that only failing programs show, so it names program features the fault does not
depend on (the statement before the selection, the position of an element, ``nth``), and,
being a conjunction, splits one fault into a group per option of a choice it needs to avoid
("any first statement but ``assign``": one group per first statement). So the headline
measure is ``astgen.report.distinct_failures``: the failures of (engine, refactoring,
generator) that show the same code the engine got wrong are one failure, whatever oracle
saw it: the code a selection refactoring acts on; else the line the structural oracle
names (the occurrence left unrenamed: rope's field rename misses ``lambda o: o.f``,
``return o.f`` in an untyped parameter's function, and ``getattr``, three faults behind 38
groups); else the signature without element positions and ``nth`` (``import0=relative``
and ``import1=relative`` are one fault). It is the paper's notion made mechanical, not an
inspection: where the selected code differs, one fault still counts once per selection
(the second-loop bug is three distinct failures, one per selection that shows it). The
older measures are printed beside it and keep their meaning.

The groups are those of the bounded-exhaustive run (``astgen.report.group_failures``); the
field-exhaustive run finds a group when it checks one of the group's failing programs and the
same engine fails the same oracle on it (signatures themselves are relative to the programs
checked, so they are not compared directly); a distinct failure likewise. Kinds are
coarser: (engine, refactoring, generator, oracle) with at least one failure.

A group's signature is the smallest set of choices (labels) that only failing programs
show; the groups each suite finds and misses are counted by signature length. The
field-exhaustive row models each case as program objects (``fex.choices.object_fields``:
the request, with the statements a selection acts on, and the numbered, typed elements,
with ``next`` and ``request`` fields); the "FE choice points" row is the narrower model
with the request as the only object. The pairwise row (every two choices taken together,
``fex.choices.pairwise_cases``) is a stronger reference point, not the criterion. reks's
own engine has no failure groups left; measure on raw rope (``--engines rope``).

Three measures, side by side, each counted twice: groups whose own failing programs the
suite checks (``_found``), and groups whose signature the suite shows on a program that
fails the same way (``_matched``: a program failing two ways sits in one group only).
*Groups* as above. *Groups without nth*: signatures with the ``nth`` label dropped (it
numbers selections whose other labels are equal). *Bugs*, fex5's approximation: groups are
one bug when the same signature fails under two oracles (``output-changed`` and
``structural`` of one rename), or when the same oracle fails on the same selected code
(extract method): rope's bound-2 extract-method groups split one bug, such as ``k`` bound in
one branch of a ``while`` body not being passed to the extracted function, into a group per
statement before it, because that statement changes which ``nth`` the selection is.
``--missed`` lists the bugs the field-exhaustive suite misses, with their groups and
selected code.

Field models tried on one bound-2 rope run (fex4, 6460 programs, 154 groups), as (programs,
groups found): program objects 636 (9.8%), 108; ``next = None`` after the last element 717,
107; three-way and all-way choices for cases without elements 658, 112 and 684, 112;
elements typed by the selection (site+depth / +from / +from,to / +jumps) 728, 108 / 1197,
123 / 2266, 132 / 966, 117; an element field for the selection (from,to,nth / +depth)
1292, 122 / 1390, 129; the AST statement the refactoring starts at 674, 113; pairwise 696,
83. fex5, with bugs (79 in that run): program objects 636, 108 groups, 68 bugs (86%); +
the selected statements (first and last line) on the request 671, 110, 70; + three-way
choices without elements 693, 114, 72; the same with the selection's own labels (depth,
live-out, augmented, jumps) no element fields, as they describe what ``selects`` names: 644
(10.0%), 114 (74%), 72 (91%). fex6: the 40 missed groups are 10 bugs of extract method
(and one move), each split into a group per statement before the selection (``stmt0``) that
leaves the loop running: a signature is a conjunction of labels, so "any ``stmt0`` but
``assign``" is one group per ``stmt0``. What decides them is which statement the selection
starts at, which first and last line do not name: the two ``if x % 2 == 1:`` of one
``while`` body (rope extracts the one that reads ``k`` wrongly), the second of two equal
loops (rope passes on the first loop's ``i``, unbound when it did not run). The statement as
an object numbered in preorder and typed by its AST class (``#7:if``): 644 (10.0%), 118
(77%), 72 (91%), the model ``fex.choices`` uses: it finds the ``if`` bug, and the second-loop
bugs stay missed (the number names the second loop, not that the first one is equal; the
element role below names that, at 709 programs or more). Also tried: typed by the ``from`` label
646, 118, 72; first and last statement numbered 938, 121, 76 (with their lines 1063, 128,
78: 99% of the bugs at 16.5% of the programs); the element a selection starts in as a role
of the elements' ``next`` 709-1377, 114-119, 71-74; ``next = None`` 716, 112, 71. The groups
left are the per-``stmt0`` splits: hitting each needs every ``stmt0`` x every selection of
``stmt1`` (about half the statement programs), which no field of the model justifies: the
node as a choice of the request that every element takes part in (``element<i>.request``)
gives 1101 (17.0%), 134 (87%), 73 (92%).

fex6, full runs of this bench (load 8-16): bound 2, rope: FE 644 of 6460 (10.0%), groups 118/154
(77%), bugs 72/79 (91%); signatures shown and failed 119 (77%), 73 (92%); pairwise 696,
83 / 108, 57 / 70. Bound 3, ``--generator fields``, rope: FE 189 of 1914 (9.9%), groups 70/90
(78%), bugs 35/45 (78%); shown and failed 82 (91%), 41 (91%); pairwise 111 (5.8%), 24 / 90
(100%). The fields groups FE misses pair ``use0`` with ``use2``: a path of two ``next``
fields, which the SAT route's further round covers for data structures; as a field
(``next.next``) it shows all 90 with 204 programs (10.7%), and changes nothing at bound 2.
``--engines reks`` at bound 2: no failure at all in 6460 programs, nothing to compare.

fex7: the model types a statement equal to an earlier one as ``again`` (``#9:for:again``:
the second of two equal loops, whose extraction rope gives the first loop's ``i``), which
alone costs 659 programs (10.2%); to stay within 10% it drops a redundant field, the
elements' ``request`` for a selection inside a statement (extract variable), whose crossing
of every statement with the expression and the statement it is in only split one
extract-variable failure (a timeout) by the statement before it. Offline on one bound-2 BE
run: base 644 programs, 45/51 distinct failures (88%), 118 groups; + ``again`` 659, 46, 119;
+ ``again``, - that ``request`` 640 (9.9%), 46 (90%), 110; keeping its ``in`` half 658, 46,
119; its ``expr`` half 645, 46, 113; + ``next = None`` on the last element 700, 45, 108 (the
``import0=relative`` group it was for is the same fault as ``import1=relative``, which the
suite finds). Full run (load 6.1-9.6): BE 6460 programs 156 s, 154 groups, 79 bugs, 51
distinct failures; FE 640 (9.9%) 32 s: distinct failures 46/51 (90%), bugs 73/79 (92%),
groups 110/154 (71%); shown and failed: bugs 74 (94%), groups 111 (72%). Pairwise 696
(10.8%): 44 (86%), 57, 83. Choice points 127 (2.0%): 33 (65%), 37, 48. The five missed
distinct failures are extract-method selections: two of the second equal loop (with the
``print`` after it, and the ``return``), two of a ``while`` whose second loop reuses ``k``
at ``nth`` 1, and ``x += 1`` plus the ``if`` that binds ``k``.

fex9 rerun on the final code (load 12-16): BE 6460 programs 229 s, 51 distinct failures;
FE 640 (9.9%) 47 s: distinct failures 46/51 (90%), bugs 73/79 (92%), groups 110/154 (71%).

    python bench/fex_engine.py [--bound 2] [--engines rope] [--jobs 2] [--generator G] [--missed]
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


def _distinct_failures(be_outcome: driver.RunOutcome, be_cases: list) -> dict[tuple, tuple]:
    """(engine, oracle, generator, labels) of every bounded-exhaustive failure -> the
    distinct failure it shows (``report.distinct_failures``: the engine fault, as ASTGen
    counts them)."""
    distinct = report.distinct_failures(be_outcome.results, be_cases)
    return {
        (r.engine, f.oracle, be_cases[r.index][0], be_cases[r.index][1].labels): distinct[
            (r.index, r.engine, f.oracle)
        ]
        for r in be_outcome.results
        for f in r.findings
    }


def _distinct_share(of_failure: dict, cases: list, outcome: driver.RunOutcome) -> str:
    found = {of_failure[x] for x in _failures(outcome, cases) if x in of_failure}
    every = len(set(of_failure.values()))
    return f"{len(found)}/{every} ({100.0 * len(found) / max(every, 1):.0f}%)"


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


def _matched(groups: list, cases: list, outcome: driver.RunOutcome) -> list[bool]:
    """Per BE group: whether this suite checked a program showing the group's signature (all
    its labels) that failed the group's oracle with its engine. ``_found`` asks for one of
    the group's own programs, but a program failing for two reasons is put in one group by
    the order ``report.signatures`` drops labels in: a suite that shows a signature, and
    fails there, has found it whichever group its program went to."""
    failed = [
        (r.engine, r.kind, r.generator, f.oracle, set(cases[r.index][1].labels))
        for r in outcome.results
        for f in r.findings
    ]
    return [
        any(
            (engine, kind, generator, oracle) == group.key[:4] and set(group.signature) <= shown
            for engine, kind, generator, oracle, shown in failed
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
    parser.add_argument("--missed", action="store_true", help="list the bugs FE misses")
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
    bugs = bug_of(groups, be_cases)
    of_failure = _distinct_failures(be_outcome, be_cases)
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
            print(
                f"  {name}: {_measures(groups, bugs, found)} with "
                f"{100.0 * len(cases) / len(be_cases):.1f}% of the programs "
                f"({be_seconds / seconds:.1f}x faster)"
            )
            print(
                f"  {name}, distinct failures (the paper's bugs): "
                f"{_distinct_share(of_failure, cases, outcome)}"
            )
            shown = _matched(groups, cases, outcome)
            print(f"  {name}, signatures shown and failed: {_measures(groups, bugs, shown)}")
        if name == "field-exhaustive" and args.missed:
            _print_missed(groups, bugs, found, be_cases)
            _print_missed_distinct(of_failure, cases, outcome)


def bug_of(groups: list, be_cases: list) -> list[int]:
    """Per group, the number of the bug it is part of (module docstring): groups sharing a
    signature across oracles, or an oracle and a selected code, are one bug."""
    parent = list(range(len(groups)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[tuple, int] = {}
    for i, group in enumerate(groups):
        keys: list[tuple] = [(group.engine, group.kind, group.generator, group.signature)]
        for member in group.members:
            code = report.selected_code(be_cases[member.index][1].value)
            if code is not None:
                keys.append((group.engine, group.kind, group.generator, group.oracle, code))
        for key in keys:
            parent[find(i)] = find(first.setdefault(key, i))
    return [find(i) for i in range(len(groups))]


def _measures(groups: list, bugs: list[int], found: list[bool]) -> str:
    """``found/all`` groups, groups without ``nth``, bugs."""

    def share(keys: list) -> str:
        hit = {key for key, f in zip(keys, found, strict=True) if f}
        return f"{len(hit)}/{len(set(keys))} ({100.0 * len(hit) / max(len(set(keys)), 1):.0f}%)"

    no_nth = [
        (g.engine, g.kind, g.generator, g.oracle, tuple(x for x in g.signature if x[0] != "nth"))
        for g in groups
    ]
    return (
        f"groups {share(list(range(len(groups))))}, without nth {share(no_nth)}, bugs {share(bugs)}"
    )


def _print_missed(groups: list, bugs: list[int], found: list[bool], be_cases: list) -> None:
    for bug in sorted(set(bugs)):
        members = [i for i, b in enumerate(bugs) if b == bug]
        if any(found[i] for i in members):
            continue
        group = groups[members[0]]
        print(f"  missed bug: {group.kind} {group.generator}, {len(members)} group(s):")
        for i in members:
            print(f"    {groups[i].oracle} {groups[i].signature}")
        code = report.selected_code(be_cases[group.members[0].index][1].value)
        if code is not None:
            print("    selects: " + code.replace("\n", "\n             "))


def _kinds(outcome: driver.RunOutcome) -> set[tuple]:
    return {(r.engine, r.kind, r.generator, f.oracle) for r in outcome.results for f in r.findings}


def _print_missed_distinct(of_failure: dict, cases: list, outcome: driver.RunOutcome) -> None:
    found = {of_failure[x] for x in _failures(outcome, cases) if x in of_failure}
    for engine, kind, generator, code in sorted(set(of_failure.values()) - found, key=str):
        text = "\n".join(code).replace("\n", "\n" + " " * 13)
        print(f"  missed distinct failure: {engine} {kind} {generator}:\n             {text}")


if __name__ == "__main__":
    main()
