"""Build the ``Provenance`` of a refactoring task from the texts before and after it.

Units (``lsp_server.rts.units``) of every touched file are computed before and after; a
unit present on both sides with a new checksum is MODIFIED. Units that disappear or appear
are then paired according to what the refactoring kind says happened:

- a renamed path (module or package rename/move): each unit of the old file is REPLACED by
  the unit of the same (possibly renamed) name in the new file;
- ``name_map`` (rename of a function, method or class): an old unit whose qualified name
  maps to a new one is REPLACED by it;
- ``pair_moved`` (move global, move method): an old unit reappearing under the same name in
  another file is MOVED there;
- ``derived_from``: new units made from these sources are DERIVED (or MOVED) from them;
- ``creates``: the kind legitimately creates units from nothing (CREATED, still exact);
- ``removes``: the kind legitimately removes units (inline method: REMOVED, still exact).

Whatever is left unexplained makes the provenance inexact, so the REKS rules fall back to
treating the changed units as developer changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from lsp_server.rts.analysis_cache import cached_source_units
from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.provenance import Origin, Provenance, TaskTarget
from lsp_server.rts.unit_names import MODULE, is_place
from lsp_server.rts.units import SourceError


@dataclass
class Hints:
    """What the refactoring kind knows about where code went."""

    name_map: Callable[[str], str] | None = None
    pair_moved: bool = False
    derived_from: list[Unit] = field(default_factory=list)
    derived_origin: Origin = Origin.DERIVED
    creates: bool = False
    removes: bool = False


@dataclass(frozen=True)
class QualnameRenamer:
    """Maps qualified names whose dotted segment ``old`` becomes ``new`` (``C.m`` -> ``C.n``).
    Plain data rather than a closure, so a result can cross to another process."""

    old: str
    new: str

    def __call__(self, qualname: str) -> str:
        return ".".join(self.new if part == self.old else part for part in qualname.split("."))


def qualname_renamer(old: str, new: str) -> QualnameRenamer:
    return QualnameRenamer(old, new)


@dataclass
class ProvenancePlan:
    """Everything ``build_provenance`` needs, kept until the Provenance is asked for (it
    costs more than the refactoring on large files). Called, it builds the Provenance."""

    kind: str
    description: str
    before: dict[str, str | None]
    after: dict[str, str | None]
    renamed: dict[str, str]
    hints: Hints
    target: TaskTarget | None = None
    exact: bool = True
    """False when the task is known inexact up front (changes the user confirmed)."""

    def __call__(self) -> Provenance:
        prov = build_provenance(
            self.kind, self.description, self.before, self.after, self.renamed, self.hints
        )
        prov.target = self.target
        if not self.exact:
            prov.exact = False
        return prov


def _units(rel: str, text: str | None) -> FileUnits | None:
    """``rel``'s units but its places (``is_place``): a task moves code, and the REKS rules
    judge places apart (``_Rules.places_moved``)."""
    if text is None:
        return None
    units = _cached_units(rel, text)
    checksums = {name: value for name, value in units.checksums.items() if not is_place(name)}
    return dataclasses.replace(units, checksums=checksums)


# Files are usually unchanged between two tasks: their units need not be recomputed. The
# cache is shared with the REKS rules, which parse the same texts right after.
_cached_units = cached_source_units


Sides = dict[str, "FileUnits | None"]
"""Root-relative path -> its units on one side (None: absent, not Python, or accounted for)."""


@dataclass
class _Unexplained:
    """Units that disappeared or appeared and are not paired yet (unit -> checksum)."""

    gone: dict[Unit, str] = field(default_factory=dict)
    new: dict[Unit, str] = field(default_factory=dict)
    imports: set[Unit] = field(default_factory=set)
    """Import units among them: left unpaired (no rename maps them), one was dropped or
    added, as organize imports does, and no code went anywhere."""

    def pair(self, prov: Provenance, origin: Origin, old: Unit, new: Unit) -> None:
        prov.add(origin, old, new)
        del self.gone[old]
        del self.new[new]


def build_provenance(
    kind: str,
    description: str,
    before: Mapping[str, str | None],
    after: Mapping[str, str | None],
    renamed: Mapping[str, str],
    hints: Hints,
) -> Provenance:
    """``before``/``after``/``renamed`` use root-relative POSIX paths."""
    prov = Provenance(kind=kind, description=description)
    prov.files_before = dict(before)
    prov.files_after = dict(after)
    old_units, new_units, broken = _parse_sides(before, after)
    _explain_broken(prov, broken, renamed, old_units, new_units)
    left = _Unexplained()
    _pair_renamed_files(prov, renamed, hints, old_units, new_units, left)
    _compare_in_place(prov, old_units, new_units, left)
    if hints.name_map is not None:
        _pair_renamed_units(prov, hints.name_map, left)
    if hints.pair_moved:
        _pair_moved_units(prov, left)
    _settle_leftovers(prov, hints, left)
    return prov


def _parse_sides(
    before: Mapping[str, str | None], after: Mapping[str, str | None]
) -> tuple[Sides, Sides, set[str]]:
    """The units of every touched Python file before and after, and the paths with a side
    that does not parse."""
    old_units: Sides = {}
    new_units: Sides = {}
    broken: set[str] = set()
    for path in sorted(set(before) | set(after)):
        is_python = path.endswith((".py", ".pyw"))
        try:
            old_units[path] = _units(path, before.get(path)) if is_python else None
            new_units[path] = _units(path, after.get(path)) if is_python else None
        except SourceError:
            broken.add(path)
            old_units[path] = new_units[path] = None
    return old_units, new_units, broken


def _explain_broken(
    prov: Provenance,
    broken: set[str],
    renamed: Mapping[str, str],
    old_units: Sides,
    new_units: Sides,
) -> None:
    """A file that does not parse on one side: say only what happened to its module."""
    targets = set(renamed.values())
    for path in sorted(broken):
        prov.exact = False
        module = Unit(path, MODULE)
        if path in renamed:
            prov.add(Origin.REPLACED, module, Unit(renamed[path], MODULE))
            old_units[renamed[path]] = new_units[renamed[path]] = None
        elif path not in targets:
            prov.add(Origin.MODIFIED, module, module)


def _pair_renamed_files(
    prov: Provenance,
    renamed: Mapping[str, str],
    hints: Hints,
    old_units: Sides,
    new_units: Sides,
    left: _Unexplained,
) -> None:
    """Files whose path changed: pair units by (mapped) name across the rename."""
    for old_path, new_path in renamed.items():
        src, dst = old_units.get(old_path), new_units.get(new_path)
        if src is None or dst is None:
            continue
        mapping = hints.name_map or (lambda name: name)
        for name in src.checksums:
            target = mapping(name)
            if target in dst.checksums:
                prov.add(Origin.REPLACED, Unit(old_path, name), Unit(new_path, target))
            else:
                left.gone[Unit(old_path, name)] = src.checksums[name]
        paired = {mapping(name) for name in src.checksums}
        for name in dst.checksums:
            if name not in paired:
                left.new[Unit(new_path, name)] = dst.checksums[name]
        # Both sides are accounted for: keep them out of the same-path comparison.
        old_units[old_path] = new_units[new_path] = None


def _compare_in_place(
    prov: Provenance, old_units: Sides, new_units: Sides, left: _Unexplained
) -> None:
    """Same path on both sides: a unit with a new checksum is MODIFIED; the others that
    disappear or appear are left to pair."""
    for path in sorted(set(old_units) | set(new_units)):
        src, dst = old_units.get(path), new_units.get(path)
        src_sums = src.checksums if src is not None else {}
        dst_sums = dst.checksums if dst is not None else {}
        for name, checksum in src_sums.items():
            if name not in dst_sums:
                left.gone[Unit(path, name)] = checksum
                if src is not None and name in src.import_units:
                    left.imports.add(Unit(path, name))
            elif dst_sums[name] != checksum:
                unit = Unit(path, name)
                prov.add(Origin.MODIFIED, unit, unit)
        for name, checksum in dst_sums.items():
            if name not in src_sums:
                left.new[Unit(path, name)] = checksum
                if dst is not None and name in dst.import_units:
                    left.imports.add(Unit(path, name))


def _pair_renamed_units(
    prov: Provenance, name_map: Callable[[str], str], left: _Unexplained
) -> None:
    by_key = {(u.path, u.name): u for u in left.new}
    for unit in sorted(left.gone):
        renamed_unit = by_key.get((unit.path, name_map(unit.name)))
        if renamed_unit is not None and renamed_unit in left.new:
            left.pair(prov, Origin.REPLACED, unit, renamed_unit)


def _pair_moved_units(prov: Provenance, left: _Unexplained) -> None:
    """An old unit reappearing under the same name in exactly one place MOVED there."""
    by_name: dict[str, list[Unit]] = {}
    for unit in sorted(left.new.keys() - left.imports):
        by_name.setdefault(unit.name, []).append(unit)
    for unit in sorted(left.gone.keys() - left.imports):  # an import carries no code
        candidates = [u for u in by_name.get(unit.name, []) if u in left.new]
        if len(candidates) == 1:
            left.pair(prov, Origin.MOVED, unit, candidates[0])


def _settle_leftovers(prov: Provenance, hints: Hints, left: _Unexplained) -> None:
    """New units are derived from the hinted sources, else created; the rest is removed.
    Whatever the kind does not account for makes the provenance inexact."""
    for unit in sorted(left.new):
        if unit in left.imports:
            prov.add(Origin.CREATED, None, unit)
        elif hints.derived_from:
            prov.add(hints.derived_origin, hints.derived_from[0], unit, *hints.derived_from)
        else:
            prov.add(Origin.CREATED, None, unit)
            if not hints.creates:
                prov.exact = False
    for unit in sorted(left.gone):
        prov.add(Origin.REMOVED, unit, None)
        if not hints.removes and unit not in left.imports:
            prov.exact = False
