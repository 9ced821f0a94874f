"""The editor's quick path: after a file is saved, which of its functions changed since the
last analysis, and that analysis with the re-analysed functions merged in.

The server keeps the last analysis of each project; ``saved_change`` compares the unit
checksums of the saved file's functions with it. Only the changed (or new) functions are
analysed again (``Options.only``); ``merged`` keeps the verdicts of every other function (at
its current ``def`` line), drops functions that were removed or renamed, and takes the new
verdicts of the edited ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lsp_server.extreme.analysis import Analysis, config_patterns
from lsp_server.extreme.discover import FunctionInfo, discover
from lsp_server.extreme.model import TransformationResult, Verdict


@dataclass
class SavedChange:
    """What a save changed in one analysed file."""

    path: str  # POSIX, relative to the project root
    current: dict[str, FunctionInfo]  # the file's functions now, by key, in file order
    changed: list[str]  # keys whose unit differs from the last analysis, or that are new
    removed: list[str]  # keys of the last analysis the file no longer has
    # Other functions with an undetected verdict whose transformed run reached a changed or
    # removed one: the edit may let a test see what it did not (see ``reached_by``).
    reached: list[str] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.changed or self.removed)

    @property
    def to_analyse(self) -> list[str]:
        """The functions to analyse again (``Options.only``)."""
        return [*self.changed, *self.reached]

    @property
    def files(self) -> list[str]:
        """The files of those functions (``Options.paths``, and whose diagnostics change)."""
        return sorted({self.path, *(key.split("::", 1)[0] for key in self.reached)})


def saved_change(last: Analysis, rel: str, patterns: Sequence[str] = ()) -> SavedChange | None:
    """How the functions of ``rel`` differ from ``last``; None when ``last`` did not analyse
    that file or it does not parse now (its diagnostics stay as they are)."""
    before = {k: f for k, f in last.functions.items() if f.path == rel}
    if not before and rel not in last.errors:
        return None
    found, errors = discover(last.root, [rel], [*config_patterns(last.root), *patterns])
    if errors:
        return None
    current = {f.key: f for f in found}
    changed = [
        key
        for key, function in current.items()
        if key not in before or before[key].checksum != function.checksum
    ]
    removed = [key for key in before if key not in current]
    reached = reached_by(last, {*changed, *removed})
    return SavedChange(rel, current, changed, removed, reached)


def reached_by(last: Analysis, edited: set[str]) -> list[str]:
    """Functions of ``last`` with an undetected verdict whose transformed run executed one
    of the ``edited`` functions (or that did not record what it ran). Such a verdict is
    what the tests did with the old code of those: a fixed caller can now pass the
    function's result on to an assertion. Detections are not checked again here (a stale
    one never shows "undetected"); the next whole analysis checks them."""
    found: list[str] = []
    for result in last.results:
        t = result.transformation
        key = f"{t.path}::{t.function}"
        if result.verdict is not Verdict.UNDETECTED or key in edited or key in found:
            continue
        if result.units is None or edited.intersection(result.units):
            found.append(key)
    return found


def merged(last: Analysis, change: SavedChange, fresh: Analysis | None) -> Analysis:
    """``last`` with the functions of ``change.path`` as they are now: verdicts from
    ``fresh`` for the re-analysed ones, the remembered ones (moved to their current line)
    for the others."""
    functions = {k: f for k, f in last.functions.items() if f.path != change.path}
    functions.update(change.current)
    old = last.by_function()
    new = fresh.by_function() if fresh is not None else {}
    results: list[TransformationResult] = []
    for key, function in functions.items():
        if key in new:
            results.extend(new[key])
        else:
            results.extend(_at_line(old.get(key, []), function.line))
    covering = {k: v for k, v in last.covering.items() if k in functions}
    errors = {p: e for p, e in last.errors.items() if p != change.path}
    if fresh is not None:
        covering.update(fresh.covering)
        errors.update(fresh.errors)
    return dataclasses.replace(
        last,
        results=results,
        functions=functions,
        covering=covering,
        errors=errors,
        reused=last.reused & set(functions),
        import_time=(last.import_time | (fresh.import_time if fresh else set())) & set(functions),
        elapsed=fresh.elapsed if fresh else 0.0,
        run_count=fresh.run_count if fresh else 0,
        hung_tests=list(fresh.hung_tests) if fresh else [],
        defects=list(fresh.defects) if fresh else [],
    )


def replaced_files(last: Analysis | None, fresh: Analysis, files: Iterable[str]) -> Analysis:
    """``last`` with everything about ``files`` taken from ``fresh`` (a run over some paths
    of the project); ``fresh`` alone when there is no ``last``."""
    if last is None:
        return fresh
    gone = set(files)
    functions = {k: f for k, f in last.functions.items() if f.path not in gone}
    functions.update(fresh.functions)
    kept = [r for r in last.results if r.transformation.path not in gone]
    return dataclasses.replace(
        fresh,
        functions=functions,
        results=kept + fresh.results,
        covering={**{k: v for k, v in last.covering.items() if k in functions}, **fresh.covering},
        errors={**{p: e for p, e in last.errors.items() if p not in gone}, **fresh.errors},
    )


def _at_line(results: list[TransformationResult], line: int) -> list[TransformationResult]:
    return [
        dataclasses.replace(r, transformation=dataclasses.replace(r.transformation, line=line))
        for r in results
    ]
