"""The editor's re-analysis after a save, on warm workers (issue 17: under 2 s).

For each project (``--project PATH=target.py,...``, a checkout whose packages import from
PATH or PATH/src) the target files are analysed once on warm workers, as the server does;
then one function at a time gets a statement added to its body, and the save is
re-analysed as the editor does (``quick.saved_change``: the edited function and every
function whose transformed runs reached it, in the steps of ``quick.staged``: the edited
functions' verdicts first), twice; the second figure is the warm one: the time to the
edited functions' verdicts and to the whole re-analysis. ``--compare`` re-analyses each
save in one step too (as the editor did before ``staged``), the two ways taking turns.
Cases: a function of middling coverage, the most covered one (central), one that ran at
import, the function whose edit re-analyses the most others (a save reaching central
functions), and an import-time function edited together with an ordinary one.

    TMPDIR=/some/dir nice python bench/editor_reanalysis.py --project PATH=src/pkg/m.py
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from extreme_phases import PHASE_SECONDS, clock_phases, print_phases
from extreme_speed import QUIET, WORK, first_body_line, import_root, load

from lsp_server.extreme.analysis import Analysis, Options, analyse
from lsp_server.extreme.model import Verdict
from lsp_server.extreme.quick import SavedChange, merged, reached_by, saved_change, staged
from lsp_server.extreme.warm import WarmPools


@dataclass
class Figure:
    """One warm re-analysis."""

    seconds: float
    edited_seconds: float  # until the edited functions' verdicts (the first step)
    analysed: int  # functions re-analysed (the edited ones and those reached)
    runs: int  # transformations run
    observed: int  # tests observed
    restarts: int  # in-place pools started afresh during it
    from_spares: int  # of those, started from a spare
    phases: dict[str, float]  # seconds by step (``extreme_phases``)
    edited_phases: dict[str, float]  # the same, of the first step alone
    steps: list[float]  # seconds until each step's verdicts (``quick.staged``)


def _edited(text: str, def_line: int, statement: str) -> str:
    """``text`` with ``statement`` added before the first statement of the function defined
    at ``def_line``."""
    lines = text.splitlines(keepends=True)
    at = first_body_line(text, def_line) - 1
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    return "".join([*lines[:at], f"{indent}{statement}\n", *lines[at:]])


def saved_twice(
    root: Path,
    last: Analysis,
    keys: Sequence[str],
    options: Options,
    warm: WarmPools,
    ways: Sequence[bool] = (True,),
) -> tuple[dict[bool, Figure], Analysis]:
    """Edit the functions ``keys`` (all in one file), save and re-analyse as the editor
    does, twice each way of ``ways`` (True: in the steps of ``quick.staged``, False: in
    one), the ways taking turns; the second figure of each way and the analysis of the
    original code again (the state as it was, for the next case)."""
    rel = keys[0].split("::", 1)[0]
    path = root / rel
    original = path.read_text(encoding="utf-8")
    figures: dict[bool, Figure] = {}
    # From the bottom up: an added line moves the functions below it.
    lines = sorted((last.functions[k].line for k in keys), reverse=True)
    try:
        for edit in range(2 * len(ways)):
            text = original
            for line in lines:
                text = _edited(text, line, f"_reks_edit = {edit}")
            path.write_text(text, encoding="utf-8")
            change = saved_change(last, rel)
            assert change is not None and change.any, keys
            way = ways[edit % len(ways)]
            figures[way], last = _reanalysed(root, last, change, options, warm, way)
    finally:
        path.write_text(original, encoding="utf-8")
    return figures, analyse(root, options, warm=warm)


def _reanalysed(
    root: Path,
    last: Analysis,
    change: SavedChange,
    options: Options,
    warm: WarmPools,
    in_steps: bool,
) -> tuple[Figure, Analysis]:
    """The figure of re-analysing ``change`` (``in_steps``: as ``quick.staged`` says, else
    in one analysis) and ``last`` with it merged."""
    restarts, spares = warm.restarts, warm.spares_used
    PHASE_SECONDS.clear()
    started = time.perf_counter()
    steps: list[float] = []
    first: dict[str, float] = {}
    runs = observed = 0
    for step in staged(change) if in_steps else [change]:
        only = Options(**{**options.__dict__, "only": step.to_analyse})
        fresh = analyse(root, only, warm=warm)
        steps.append(time.perf_counter() - started)
        first = first or dict(PHASE_SECONDS)
        runs, observed = runs + fresh.run_count, observed + fresh.observed_tests
        last = merged(last, step, fresh)
    restarted, from_spares = warm.restarts - restarts, warm.spares_used - spares
    analysed = len(change.to_analyse)
    figure = Figure(
        steps[-1],
        steps[0],
        analysed,
        runs,
        observed,
        restarted,
        from_spares,
        dict(PHASE_SECONDS),
        first,
        steps,
    )
    return figure, last


def cases(analysis: Analysis) -> list[tuple[str, list[str]]]:
    """(label, the functions edited in one save) of each case the module docstring names."""
    ran = [
        f"{r.transformation.path}::{r.transformation.function}"
        for r in analysis.results
        if r.verdict is not Verdict.SKIPPED and r.tests
    ]
    keys = list(dict.fromkeys(ran))
    if not keys:
        return []
    covering = analysis.covering
    chosen = [
        ("middling", [keys[len(keys) // 2]]),
        ("central", [max(keys, key=lambda k: len(covering.get(k, [])))]),
    ]
    at_import = [k for k in keys if k in analysis.import_time]
    ordinary = [k for k in keys if k not in analysis.import_time]
    if at_import:
        chosen.append(("ran at import", at_import[:1]))
        same_file = [k for k in ordinary if k.split("::")[0] == at_import[0].split("::")[0]]
        if same_file:
            chosen.append(("ran at import + ordinary, one save", [at_import[0], same_file[0]]))
    reaching = max(keys[:200], key=lambda k: len(reached_by(analysis, [k])))
    if reached_by(analysis, [reaching]):
        chosen.append(("save reaching others", [reaching]))
    return chosen


def run(root: Path, targets: list[str], jobs: int, compare: bool) -> None:
    copy = WORK / "editor" / root.name
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".reks", "__pycache__"))
    os.environ["PYTHONPATH"] = str(import_root(copy))
    options = Options(paths=[copy / t for t in targets], jobs=jobs, pytest_args=QUIET)
    warm = WarmPools()
    try:
        started = time.perf_counter()
        last = analyse(copy, options, warm=warm)
        first = time.perf_counter() - started
        print(
            f"== {root.name}: {', '.join(targets)}: first analysis {first:.1f} s, "
            f"{len(last.functions)} functions {load()}"
        )
        ways = (False, True) if compare else (True,)
        for label, keys in cases(last):
            figures, last = saved_twice(copy, last, keys, options, warm, ways)
            names = ", ".join(k.split("::", 1)[1] for k in keys)
            covering = max(len(last.covering.get(k, [])) for k in keys)
            for way, figure in figures.items():
                PHASE_SECONDS.clear()
                PHASE_SECONDS.update(figure.edited_phases)
                print_phases(figure.edited_seconds, "the edited functions' step")
                PHASE_SECONDS.clear()
                PHASE_SECONDS.update(figure.phases)
                print_phases(figure.seconds)
                how = "in steps" if way else "in one step"
                print(
                    f"    {label} ({names}; {covering} covering tests), {how}: "
                    f"{figure.seconds:.2f} s on warm workers (the edited functions' "
                    f"verdicts after {figure.edited_seconds:.2f} s; steps done at "
                    f"{', '.join(f'{t:.2f}' for t in figure.steps)} s); "
                    f"{figure.analysed} functions re-analysed, {figure.runs} transformations "
                    f"run, {figure.observed} tests observed, {figure.restarts} pool restarts "
                    f"({figure.from_spares} from a spare) "
                    f"{load()}"
                )
    finally:
        warm.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--project", action="append", required=True, help="PATH=target.py,...")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="also re-analyse each save in one step (as before quick.staged), taking turns",
    )
    args = parser.parse_args()
    clock_phases()
    for spec in args.project:
        path, _, targets = spec.partition("=")
        run(Path(path).resolve(), targets.split(","), args.jobs, args.compare)
    return 0


if __name__ == "__main__":
    sys.exit(main())
