"""The SAT route's suite per scope on the paper's subjects: one target a model (the paper's
way, ``sat.solve(widen=False)``) against the default, each model widened to show an open
value of as many fields as it can (``fex.sat._round``). For the criterion's round alone and
for the whole suite (with the size and path rounds): inputs, inputs per unit of scope
(linear growth keeps it flat), seconds and the ratio of the two times, measured in the same
run. A structure stops after the first scope whose widened suite takes over ``--budget``
seconds. ``#F x n^2`` is the paper's bound.

fex9 (load 13-21, widened whole suite, inputs per unit of scope and added per unit since the
previous scope): sorted list 4-24: 3.0, 2.1, 1.6, 1.4 (+1.0); bst 4-16: 5.8, 5.0, 4.2, 4.1
(+4.2, +2.5, +3.8); red-black tree 4-16: 4.0, 4.6, 4.8, 5.1 (+5.2, +5.2, +5.8); binomial
heap 4-12: 4.8, 3.9, 3.0 (+3.0, +1.2); the widened whole suite takes 1.0-3.8x the time of
one target a model (its criterion's round 1.0-3.5x).

    python bench/fex_criterion_round.py [--structure bst] [--scopes 4,8,12,16] [--budget 60]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from fex_vs_be import SUBJECTS, load

from lsp_server.fex import sat
from lsp_server.fex.model import Model, build_model

SCOPES = {
    "sorted_list": "4,8,12,16,20,24,28",
    "bst": "4,6,8,10,12,14,16",
    "red_black_tree": "4,6,8,10,12",
    "binomial_heap": "4,6,8,10,12",
}


def _cell(result: sat.SatResult, scope: int) -> str:
    return f"{len(result.selected):5} {len(result.selected) / scope:4.1f}/n {result.seconds:7.2f} s"


def _marginal(inputs: int, scope: int, previous: tuple[int, int] | None) -> str:
    """Inputs added per unit of scope since the previous scope: constant when the suite
    grows linearly (a n + b with b < 0 makes inputs/n rise towards a while this stays)."""
    if previous is None:
        return "   -  "
    return f"{(inputs - previous[0]) / (scope - previous[1]):4.1f}/n"


def _compare(model: Model, scope: int, **rounds: int | bool) -> tuple[str, sat.SatResult]:
    """One target a model, then widened (the same input, one after the other)."""
    plain = sat.solve(model, widen=False, **rounds)  # type: ignore[arg-type]
    wide = sat.solve(model, **rounds)  # type: ignore[arg-type]
    if wide.feasible != plain.feasible:
        raise AssertionError(f"scope {scope}: the two rounds disagree on the feasible pairs")
    ratio = wide.seconds / max(plain.seconds, 1e-9)
    return f"{_cell(plain, scope)} | {_cell(wide, scope)} ({ratio:4.1f}x)", wide


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--structure", action="append", choices=sorted(SUBJECTS))
    parser.add_argument("--scopes", help="comma-separated (default: per structure)")
    parser.add_argument("--budget", type=float, default=60.0)
    args = parser.parse_args()
    print(
        "criterion's round: one target a model | widened (time ratio) +widened inputs per unit"
        " of scope since the previous scope;  whole suite: same"
    )
    for name in args.structure or list(SCOPES):
        cls = getattr(load(name), SUBJECTS[name][0])
        print(f"{name}: scope, feasible pairs, #F x n^2")
        previous: dict[str, tuple[int, int]] = {}
        for scope in (int(s) for s in (args.scopes or SCOPES[name]).split(",")):
            model = build_model(cls, scope)
            criterion, narrow = _compare(model, scope, paths=1, by_size=False)
            whole, wide = _compare(model, scope)
            growth = [
                _marginal(len(result.selected), scope, previous.get(kind))
                for kind, result in (("criterion", narrow), ("whole", wide))
            ]
            previous = {"criterion": (len(narrow.selected), scope)}
            previous["whole"] = (len(wide.selected), scope)
            bound = len(model.fields) * scope**2
            print(
                f"{scope:3} {len(narrow.feasible):5} {bound:5}  {criterion} +{growth[0]};  "
                f"{whole} +{growth[1]}",
                flush=True,
            )
            if wide.seconds > args.budget:
                break


if __name__ == "__main__":
    main()
