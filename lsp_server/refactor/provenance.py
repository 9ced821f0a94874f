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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from lsp_server.rts.provenance import Origin, Provenance
from lsp_server.rts.units import (
    MODULE,
    FileUnits,
    SourceError,
    Unit,
    cached_source_units,
)


@dataclass
class Hints:
    """What the refactoring kind knows about where code went."""

    name_map: Callable[[str], str] | None = None
    pair_moved: bool = False
    derived_from: list[Unit] = field(default_factory=list)
    derived_origin: Origin = Origin.DERIVED
    creates: bool = False
    removes: bool = False


def qualname_renamer(old: str, new: str) -> Callable[[str], str]:
    """Map qualified names whose dotted segment ``old`` becomes ``new`` (``C.m`` -> ``C.n``)."""

    def rename(qualname: str) -> str:
        return ".".join(new if part == old else part for part in qualname.split("."))

    return rename


def _units(rel: str, text: str | None) -> FileUnits | None:
    if text is None:
        return None
    return _cached_units(rel, text)


# Files are usually unchanged between two tasks: their units need not be recomputed. The
# cache is shared with the REKS rules, which parse the same texts right after.
_cached_units = cached_source_units


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
    old_units: dict[str, FileUnits | None] = {}
    new_units: dict[str, FileUnits | None] = {}
    broken: set[str] = set()  # paths with a side that does not parse
    for path in sorted(set(before) | set(after)):
        is_python = path.endswith((".py", ".pyw"))
        try:
            old_units[path] = _units(path, before.get(path)) if is_python else None
            new_units[path] = _units(path, after.get(path)) if is_python else None
        except SourceError:
            broken.add(path)
            old_units[path] = new_units[path] = None

    targets = set(renamed.values())
    for path in sorted(broken):
        # A file that does not parse on one side: say only what happened to its module.
        prov.exact = False
        module = Unit(path, MODULE)
        if path in renamed:
            prov.add(Origin.REPLACED, module, Unit(renamed[path], MODULE))
            old_units[renamed[path]] = new_units[renamed[path]] = None
        elif path not in targets:
            prov.add(Origin.MODIFIED, module, module)

    gone: dict[Unit, str] = {}  # old unit -> checksum
    new: dict[Unit, str] = {}
    # Files whose path changed: pair units by name across the rename.
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
                gone[Unit(old_path, name)] = src.checksums[name]
        paired = {mapping(name) for name in src.checksums}
        for name in dst.checksums:
            if name not in paired:
                new[Unit(new_path, name)] = dst.checksums[name]
        # Both sides are accounted for: keep them out of the same-path comparison below.
        old_units[old_path] = new_units[new_path] = None

    for path in sorted(set(old_units) | set(new_units)):
        src, dst = old_units.get(path), new_units.get(path)
        src_sums = src.checksums if src is not None else {}
        dst_sums = dst.checksums if dst is not None else {}
        for name, checksum in src_sums.items():
            if name not in dst_sums:
                gone[Unit(path, name)] = checksum
            elif dst_sums[name] != checksum:
                unit = Unit(path, name)
                prov.add(Origin.MODIFIED, unit, unit)
        for name, checksum in dst_sums.items():
            if name not in src_sums:
                new[Unit(path, name)] = checksum

    if hints.name_map is not None:
        by_key = {(u.path, u.name): u for u in new}
        for unit in sorted(gone):
            renamed_unit = by_key.get((unit.path, hints.name_map(unit.name)))
            if renamed_unit is not None and renamed_unit in new:
                prov.add(Origin.REPLACED, unit, renamed_unit)
                del gone[unit]
                del new[renamed_unit]

    if hints.pair_moved:
        by_name: dict[str, list[Unit]] = {}
        for unit in sorted(new):
            by_name.setdefault(unit.name, []).append(unit)
        for unit in sorted(gone):
            candidates = [u for u in by_name.get(unit.name, []) if u in new]
            if len(candidates) == 1:
                prov.add(Origin.MOVED, unit, candidates[0])
                del gone[unit]
                del new[candidates[0]]

    for unit in sorted(new):
        if hints.derived_from:
            prov.add(hints.derived_origin, hints.derived_from[0], unit, *hints.derived_from)
        else:
            prov.add(Origin.CREATED, None, unit)
            if not hints.creates:
                prov.exact = False
    for unit in sorted(gone):
        prov.add(Origin.REMOVED, unit, None)
        if not hints.removes:
            prov.exact = False
    return prov
