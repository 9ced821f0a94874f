"""The criterion's round of the SAT route, per scope: one target a model (``fex.sat``'s
default) vs each model widened to show as many uncovered pairs as the solver finds within
``sat.WIDE_CONFLICTS`` conflicts a call (``sat.solve(wide=True)``). Prints inputs, inputs
per unit of scope (linear growth keeps it flat), seconds, and the paper's #F x n^2 bound.
A series stops after the first scope whose widened round takes over ``--budget`` seconds.

    python bench/fex_criterion_round.py [--structure bst] [--scopes 4,6,8,10,12] [--budget 60]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from fex_vs_be import SUBJECTS, load

from lsp_server.fex import sat
from lsp_server.fex.model import build_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--structure", default="bst", choices=sorted(SUBJECTS))
    parser.add_argument("--scopes", default="4,6,8,10,12")
    parser.add_argument("--budget", type=float, default=60.0)
    args = parser.parse_args()
    cls = getattr(load(args.structure), SUBJECTS[args.structure][0])
    print(f"{args.structure}: scope, feasible pairs, #F x n^2, one target a model, widened")
    for scope in (int(s) for s in args.scopes.split(",")):
        model = build_model(cls, scope)
        plain = sat.solve(model, paths=1, by_size=False)
        wide = sat.solve(model, paths=1, by_size=False, wide=True)
        bound = len(model.fields) * scope**2
        print(
            f"{scope:3} {len(plain.feasible):6} {bound:6}  "
            f"{len(plain.selected):5} ({len(plain.selected) / scope:4.1f}/n, "
            f"{plain.seconds:6.2f} s)  {len(wide.selected):5} "
            f"({len(wide.selected) / scope:4.1f}/n, {wide.seconds:6.2f} s, "
            f"{wide.seconds / max(plain.seconds, 1e-9):.0f}x the time)",
            flush=True,
        )
        if wide.seconds > args.budget:
            break


if __name__ == "__main__":
    main()
