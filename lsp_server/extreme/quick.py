"""The editor's quick path: after a file is saved, which of its functions changed since the
last analysis, and that analysis with the re-analysed functions merged in.

The server keeps the last analysis of each project; ``saved_change`` compares the unit
checksums of the saved file's functions with it. Only the changed (or new) functions are
analysed again (``Options.only``); ``merged`` keeps the verdicts of every other function (at
its current ``def`` line), drops functions that were removed or renamed, and takes the new
verdicts of the edited ones.

A verdict is what the tests did in one transformed run, so any edit of code that run
executed can change it, whatever the verdict, and wherever the edit is: in a function of
the saved file, outside its functions (a constant, a class body, an import), or in a file
that is not analysed at all (a helper, a test). ``Analysis.unit_checksums`` remembers the
checksum of every unit the runs depend on; the functions whose runs reached a unit whose
checksum changed are analysed again too (``reached_by``), and the analysis itself keeps
each of their verdicts whose run reached no edit (``reuse``).

The edited functions are what the developer waits for, so a save is re-analysed in
steps (``staged``): the edited functions first, published as soon as they are done, then
the functions the edit reached. An edit of a function that ran at import reaches every
run that read what it computed then (tens of functions, warm workers started afresh);
its own verdicts need none of that (``import_time_edit``), and the ordinary functions
edited in the same save do not wait for them (a step of their own, first).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from lsp_server.extreme.analysis import Analysis
from lsp_server.extreme.discover import FunctionInfo, config_patterns, discover
from lsp_server.extreme.model import TransformationResult, Verdict
from lsp_server.extreme.state import Checksums, file_units, run_deps


@dataclass
class SavedChange:
    """What a save changed in one analysed file."""

    path: str  # POSIX, relative to the project root
    current: dict[str, FunctionInfo]  # the file's functions now, by key, in file order
    changed: list[str]  # keys whose unit differs from the last analysis, or that are new
    removed: list[str]  # keys of the last analysis the file no longer has
    # Other functions some transformed run of which reached an edit (see ``reached_by``).
    reached: list[str] = field(default_factory=list)
    # The units of the file that runs depend on and that changed, with their checksums now.
    edited_units: dict[str, str | None] = field(default_factory=dict)
    # Of ``changed``, those that ran at import in the last analysis.
    at_import: list[str] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.changed or self.removed or self.reached)

    @property
    def to_analyse(self) -> list[str]:
        """The functions to analyse again (``Options.only``)."""
        return [*self.changed, *self.reached]

    @property
    def files(self) -> list[str]:
        """The files of those functions (``Options.paths``, and whose diagnostics change)."""
        own = [self.path] if self.current or self.removed else []  # an analysed file
        return sorted({*own, *(key.split("::", 1)[0] for key in self.reached)})


def saved_change(last: Analysis, rel: str, patterns: Sequence[str] = ()) -> SavedChange | None:
    """How the functions of ``rel`` and the code of it that ``last``'s runs executed differ
    from ``last``; None when neither was analysed or run, or when the file does not parse
    now (its diagnostics stay as they are)."""
    before = {k: f for k, f in last.functions.items() if f.path == rel}
    analysed = bool(before) or rel in last.errors
    ran = {u: v for u, v in last.unit_checksums.items() if u.partition("::")[0] == rel}
    if not analysed and not ran:
        return None
    current: dict[str, FunctionInfo] = {}
    if analysed:
        found, errors = discover(last.root, [rel], [*config_patterns(last.root), *patterns])
        if errors:
            return None
        current = {f.key: f for f in found}
    elif file_units(last.root, rel) is None:
        return None  # does not parse
    changed = [
        key
        for key, function in current.items()
        if key not in before or before[key].checksum != function.checksum
    ]
    removed = [key for key in before if key not in current]
    checksums = Checksums(last.root)
    edited_units = {u: now for u, v in ran.items() if (now := checksums.get(u)) != v}
    reached = reached_by(last, {*changed, *removed}, set(edited_units))
    at_import = [key for key in changed if key in last.import_time]
    return SavedChange(rel, current, changed, removed, reached, edited_units, at_import)


def reached_by(
    last: Analysis, edited: Collection[str], edited_units: Collection[str] = ()
) -> list[str]:
    """Functions of ``last`` one of whose transformed runs executed one of the ``edited``
    functions or depended on one of the ``edited_units`` (``state.run_deps``); and those
    with an undetected verdict that did not record what it ran. The edit may let a test
    see what it did not (a caller fixed to pass the result on to an assertion), or no
    longer see what it did (a test or a caller that stopped checking it)."""
    found: list[str] = []
    if not edited and not edited_units:
        return found
    for result in last.results:
        t = result.transformation
        key = f"{t.path}::{t.function}"
        if key in edited or key in found:
            continue
        if result.units is None:
            if result.verdict is Verdict.UNDETECTED:
                found.append(key)
            continue
        deps = run_deps(result.units)
        if not deps.isdisjoint(edited) or not deps.isdisjoint(edited_units):
            found.append(key)
    return found


def staged(change: SavedChange) -> list[SavedChange]:
    """The steps of re-analysing ``change``, each merged into the last (``merged``) in
    turn: its edited (and removed) functions, those that ran at import apart from the
    others (another kind of worker, see ``import_time_edit``: neither waits for the
    other), then the functions the edit reached. Only the merge of the last step is an
    analysis the next save may be compared with: after the first, the reached functions'
    verdicts are not yet those of the edited code."""
    ordinary = [key for key in change.changed if key not in change.at_import]
    groups = [group for group in (ordinary, change.at_import) if group]
    if len(groups) + bool(change.reached) < 2:
        return [change]
    steps = [
        dataclasses.replace(
            change,
            changed=group,
            removed=change.removed if i == 0 else [],
            reached=[],
            edited_units={},
            at_import=[key for key in group if key in change.at_import],
        )
        for i, group in enumerate(groups)
    ]
    if change.reached:
        return [*steps, dataclasses.replace(change, changed=[], removed=[], at_import=[])]
    steps[-1] = dataclasses.replace(steps[-1], edited_units=change.edited_units)
    return steps


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
    # The runs that depended on the edited units were run again (or reused where they
    # reached none): the next save compares with the code as it is now.
    unit_checksums = {**last.unit_checksums, **change.edited_units}
    if fresh is not None:
        unit_checksums.update(fresh.unit_checksums)
    return dataclasses.replace(
        last,
        results=results,
        functions=functions,
        covering=covering,
        errors=errors,
        unit_checksums=unit_checksums,
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
        unit_checksums={**last.unit_checksums, **fresh.unit_checksums},
        errors={**{p: e for p, e in last.errors.items() if p not in gone}, **fresh.errors},
    )


def _at_line(results: list[TransformationResult], line: int) -> list[TransformationResult]:
    return [
        dataclasses.replace(r, transformation=dataclasses.replace(r.transformation, line=line))
        for r in results
    ]
