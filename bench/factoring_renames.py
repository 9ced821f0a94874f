"""The refactoring phase of ``factoring_faults.py``: do factored tests stay valid when the
code under test is renamed through reks's engine (as REKS would see it), without a capture?

Each sampled function of T that the pairs execute is renamed (``name`` -> ``name_renamed``),
the factored tests that execute it run, then their system tests, and the files are put back.
A pair's verdict: **valid** (the factored test passes), **invalidated** (it fails or diverges
while its system test passes: a recapture would be needed; the measure), or **the rename
broke the system test** (rope's edit changed behaviour: no refactoring, not counted). Every
pytest run has a deadline: a rename that makes a test wait for ever (a broken timeout
around the local HTTP server) is counted as timed out instead of stopping the benchmark.
It used to rename every covered function (105 on requests) and run every pair's factored
and system tests after each: some 200 pytest runs of requests, and it never finished.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_server.console import ProgressBar
from lsp_server.factoring.runner import run_pytest
from lsp_server.jobs import Cancelled, Job
from lsp_server.project import Project
from lsp_server.refactor.apply import apply_edits
from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.model import FileEdit, RefactoringError, RefactorRequest

RUN_DEADLINE_S = 180.0
"""One pytest run of the pairs a rename touches (requests' slowest: a few seconds each)."""


@dataclass(frozen=True)
class Renamed:
    """One function of T to rename: where it is and which pairs execute it."""

    path: str  # relative to the root
    qualname: str
    node: Any  # its ast.FunctionDef
    pairs: dict[str, str]  # system test -> factored test, of the pairs that execute it


def sample(renamable: list[Renamed], count: int, seed: int) -> list[Renamed]:
    """``count`` of them (all when ``count`` is 0), the same ones for the same seed."""
    if count and len(renamable) > count:
        return random.Random(seed).sample(renamable, count)
    return renamable


def rename_validity(project: Project, renames: list[Renamed]) -> Counter[str]:
    """Rename each function with reks's engine, run the pairs that execute it, put the files
    back; the pair verdicts (see the module)."""
    engine = RefactorEngine()
    engine.add_root(str(project.root))
    totals: Counter[str] = Counter()
    try:
        with ProgressBar("renames") as bar:
            for done, renamed in enumerate(renames):
                totals.update(_one(project, engine, renamed))
                bar.update(done + 1, len(renames), renamed.qualname)
    finally:
        engine.close()
    return totals


def _one(project: Project, engine: RefactorEngine, renamed: Renamed) -> Counter[str]:
    path = project.root / renamed.path
    text = path.read_text(encoding="utf-8")
    offset = _name_offset(text, renamed.node)
    new_name = renamed.node.name + "_renamed"
    request = RefactorRequest("rename", str(path), offset, args={"new_name": new_name})
    try:
        result = engine.compute(request)
    except RefactoringError:
        return Counter({"rename refused": 1})
    originals = {e.path: e.old_text for e in result.edits if isinstance(e, FileEdit)}
    apply_edits(result.edits)
    try:
        verdicts = _verdicts(project, renamed)
    finally:
        for file, old in originals.items():
            Path(file).write_text(old, encoding="utf-8")
            engine.mark_changed(file)
    return verdicts


def _verdicts(project: Project, renamed: Renamed) -> Counter[str]:
    verdicts: Counter[str] = Counter()
    try:
        factored = _run(project, list(renamed.pairs.values()))
        system = _run(project, list(renamed.pairs))
    except Cancelled:
        print(f"  after renaming {renamed.qualname}: a run took over {RUN_DEADLINE_S:.0f} s")
        return Counter({"timed out": len(renamed.pairs)})
    for original, factored_id in renamed.pairs.items():
        entry = factored.get(factored_id, {})
        if system.get(original, {}).get("outcome") != "passed":
            verdicts["rename broke the system test"] += 1
        elif entry.get("outcome") == "passed":
            verdicts["valid"] += 1
        else:
            verdicts["INVALIDATED"] += 1
            why = entry.get("divergence") or entry.get("message", "")
            print(f"  after renaming {renamed.qualname}: {factored_id}: {why[-300:]}")
    return verdicts


def _run(project: Project, nodeids: list[str]) -> dict[str, Any]:
    """The tests' outcomes, or ``Cancelled`` after ``RUN_DEADLINE_S`` (pytest killed)."""
    job = Job()
    timer = threading.Timer(RUN_DEADLINE_S, job.cancel)
    timer.start()
    try:
        tests: dict[str, Any] = run_pytest(project, nodeids, {}, job)["tests"]
        return tests
    finally:
        timer.cancel()


def _name_offset(text: str, node: Any) -> int:
    lines = text.splitlines(keepends=True)
    start = sum(len(line) for line in lines[: node.lineno - 1]) + node.col_offset
    return text.index(node.name, text.index("def", start))
