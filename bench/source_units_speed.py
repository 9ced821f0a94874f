"""The per-file analysis (``rts.units.source_units``) of two trees of reks, side by side:
its CPU time over every Python file of some projects, and whether its results are the same.

Each tree runs in processes of its own (``PYTHONPATH`` = the tree, ``PYTHONHASHSEED=0`` so
that sets pickle alike), alternating BASE and BRANCH round by round so that a change of
the machine's load hits both. Per file: ``time.process_time`` around ``source_units``, and
its ``FileUnits`` pickled (or the ``SourceError`` it raised). Every file's result must be
the same for both trees: identical pickles, or ``==`` after unpickling (reported apart:
the same value built in another order). Any other difference is listed, and is a bug of
the faster tree.

    nice python bench/source_units_speed.py --compare BASE_TREE BRANCH_TREE PROJECT... [--rounds 3]
    python bench/source_units_speed.py PROJECT... --out RESULT.pickle    # one pass, one tree

Trees are frozen copies (``git archive``) of the two commits; projects are folders of
Python files (checkouts of the mirrors).
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, fields
from pathlib import Path

# A file's result: its CPU seconds, and its pickled ``FileUnits`` or the error it raised.
FileResult = tuple[float, bytes | str]


def python_files(projects: list[str]) -> list[tuple[str, Path]]:
    """Every ``.py`` file under the projects, as (project name / relative path, path)."""
    found = []
    for project in projects:
        root = Path(project).resolve()
        for path in sorted(root.rglob("*.py")):
            found.append((f"{root.name}/{path.relative_to(root).as_posix()}", path))
    return found


def analyse(projects: list[str]) -> dict[str, FileResult]:
    """One pass of this process's ``source_units`` over the projects' files."""
    from lsp_server.rts.tokens import SourceError
    from lsp_server.rts.units import path_units

    results: dict[str, FileResult] = {}
    for name, path in python_files(projects):
        start = time.process_time()
        try:
            outcome: bytes | str = pickle.dumps(path_units(path.parent, path), 4)
        except SourceError as exc:
            outcome = f"SourceError: {str(exc).partition(': ')[2]}"
        results[name] = (time.process_time() - start, outcome)
    return results


def run_tree(tree: str, projects: list[str], python: str) -> dict[str, FileResult]:
    """One pass of ``tree``'s analysis, in a fresh process."""
    with tempfile.NamedTemporaryFile(suffix=".pickle") as out:
        env = {**os.environ, "PYTHONPATH": tree, "PYTHONHASHSEED": "0"}
        command = [python, __file__, *projects, "--out", out.name, "--tree", tree]
        subprocess.run(command, env=env, check=True)
        with open(out.name, "rb") as handle:
            results: dict[str, FileResult] = pickle.load(handle)
            return results


@dataclass
class Comparison:
    identical: int = 0
    # The same value, pickled otherwise (sets filled in another order, objects shared
    # between fields or not): named, as (file, fields whose own pickles differ).
    equal: list[tuple[str, list[str]]] = field(default_factory=list)
    errors: int = 0  # the same error in both
    different: list[str] | None = None


def compare(base: dict[str, FileResult], branch: dict[str, FileResult]) -> Comparison:
    """How the results of the two trees match, file by file."""
    outcome = Comparison(different=[])
    assert outcome.different is not None
    for name in sorted(base.keys() | branch.keys()):
        old, new = base.get(name, (0.0, "missing"))[1], branch.get(name, (0.0, "missing"))[1]
        if old == new:
            if isinstance(old, str):
                outcome.errors += 1
            else:
                outcome.identical += 1
        elif isinstance(old, bytes) and isinstance(new, bytes):
            before, after = pickle.loads(old), pickle.loads(new)
            if before == after:
                apart = [
                    f.name
                    for f in fields(before)
                    if pickle.dumps(getattr(before, f.name)) != pickle.dumps(getattr(after, f.name))
                ]
                outcome.equal.append((name, apart))
            else:
                fields_differing = [
                    f.name
                    for f in fields(before)
                    if getattr(before, f.name) != getattr(after, f.name)
                ]
                outcome.different.append(f"{name}: {', '.join(fields_differing)}")
        else:
            outcome.different.append(f"{name}: {str(old)[:80]!r} / {str(new)[:80]!r}")
    return outcome


def side_by_side(args: argparse.Namespace) -> int:
    trees = {"BASE": args.compare[0], "BRANCH": args.compare[1]}
    totals: dict[str, list[float]] = {"BASE": [], "BRANCH": []}
    per_file: dict[str, dict[str, list[float]]] = {"BASE": {}, "BRANCH": {}}
    last: dict[str, dict[str, FileResult]] = {}
    for round_ in range(args.rounds):
        order = ["BASE", "BRANCH"] if round_ % 2 == 0 else ["BRANCH", "BASE"]
        for label in order:
            last[label] = results = run_tree(trees[label], args.projects, args.python)
            totals[label].append(sum(seconds for seconds, _ in results.values()))
            for name, (seconds, _) in results.items():
                per_file[label].setdefault(name, []).append(seconds)
        print(
            f"round {round_ + 1}: BASE {totals['BASE'][-1]:7.2f} s  "
            f"BRANCH {totals['BRANCH'][-1]:7.2f} s",
            flush=True,
        )
    base, branch = statistics.median(totals["BASE"]), statistics.median(totals["BRANCH"])
    print(f"median CPU over {len(last['BASE'])} files: BASE {base:.2f} s, BRANCH {branch:.2f} s")
    print(f"speed-up {base / branch:.2f}x")
    projects = sorted({name.partition("/")[0] for name in last["BASE"]})
    for project in projects:
        old = sum(
            statistics.median(v) for n, v in per_file["BASE"].items() if n.startswith(project + "/")
        )
        new = sum(
            statistics.median(v)
            for n, v in per_file["BRANCH"].items()
            if n.startswith(project + "/")
        )
        print(f"  {project:16} BASE {old:6.2f} s  BRANCH {new:6.2f} s  {old / new:5.2f}x")
    slowest = sorted(per_file["BASE"], key=lambda n: -statistics.median(per_file["BASE"][n]))
    print("slowest files (median s, BASE / BRANCH):")
    for name in slowest[: args.top]:
        old = statistics.median(per_file["BASE"][name])
        new = statistics.median(per_file["BRANCH"].get(name, [0.0]))
        print(f"  {old:6.3f} {new:6.3f}  {name}")
    result = compare(last["BASE"], last["BRANCH"])
    assert result.different is not None
    print(
        f"results: {result.identical} identical, {len(result.equal)} equal (pickled otherwise), "
        f"{result.errors} same error, {len(result.different)} DIFFERENT"
    )
    for name, apart in result.equal:
        print(f"  equal {name}: fields pickled otherwise: {', '.join(apart) or 'none alone'}")
    for line in result.different:
        print(f"  DIFFERENT {line}")
    return 1 if result.different else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("projects", nargs="+")
    parser.add_argument("--compare", nargs=2, metavar=("BASE_TREE", "BRANCH_TREE"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--out", help="one pass: write the results here")
    parser.add_argument("--tree", help="one pass: the tree lsp_server must come from")
    args = parser.parse_args()
    if args.compare:
        return side_by_side(args)
    import lsp_server

    if args.tree and not Path(lsp_server.__file__).resolve().is_relative_to(
        Path(args.tree).resolve()
    ):
        sys.exit(f"lsp_server comes from {lsp_server.__file__}, not {args.tree}")
    results = analyse(args.projects)
    with open(args.out, "wb") as handle:
        pickle.dump(results, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
