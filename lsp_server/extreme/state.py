"""What an extreme analysis remembers between runs (in the dependency store) and what must
stay the same for a function's remembered verdicts to hold."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

import xxhash

from lsp_server.extreme.discover import FunctionInfo
from lsp_server.extreme.doc_reads import DOCSTRINGS
from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.project import python_files
from lsp_server.project.files import is_python, is_test_path
from lsp_server.rts.analysis_cache import kept_or_new_units
from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.store import DependencyStore, StoreError, store_path
from lsp_server.rts.unit_names import (
    DEFAULTS,
    DOC,
    MODULE,
    body_name,
    doc_name,
    header_name,
    is_place,
)
from lsp_server.rts.units import SourceError, file_checksum, path_units

TOP_LEVEL = "<top-level>"
"""The pseudo-unit of a file's code outside function bodies: its module part, its binding
units (constants, imports, class bodies), whose values functions read when they run; a
verdict depends on those of every file its run executed (``run_deps``)."""

_PARSED: dict[tuple[str, str], FileUnits] = {}
"""Units of files by (path, checksum of its bytes), kept by a long-lived process (the
server) so that re-analysing after an edit parses only the edited files again. Not by
(mtime, size): an edit of the same size within one tick of the file system's clock keeps
both."""
_PARSED_MAX = 20_000


def _units(root: Path, path: str) -> FileUnits | None:
    absolute = root / path
    try:
        data = absolute.read_bytes()
        key = (str(absolute), file_checksum(data))
        units = _PARSED.get(key)
        if units is None:
            if is_python(path):
                units = kept_or_new_units(root, path, data, key[1])
            else:
                units = path_units(root, Path(path))  # a data file: its bytes' checksum
            if len(_PARSED) >= _PARSED_MAX:
                _PARSED.clear()
            _PARSED[key] = units
        return units
    except (OSError, SourceError, ValueError):
        return None


def file_units(root: Path, path: str) -> FileUnits | None:
    """Units of the file ``path`` (relative to ``root``) as it is now, parsed once per
    version of it."""
    return _units(root, path)


def remembered_units(root: Path, path: str, raw_hash: str) -> FileUnits | None:
    """Units of ``path`` when its bytes had the checksum ``raw_hash``, if parsed then."""
    return _PARSED.get((str(root / path), raw_hash))


class Checksums:
    """Current unit checksums, parsed once per file. A file whose bytes are those the
    dependency store last recorded (its raw hash, see ``rts.store.writes``) is not parsed:
    the store holds the checksum of every unit of it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, Mapping[str, str] | None] = {}
        self._values: dict[str, str | None] = {}
        self._recorded: tuple[dict[str, str | None], dict[str, dict[str, str | None]]] | None
        self._recorded = None

    def units(self, path: str) -> Mapping[str, str] | None:
        """Checksum of every unit of ``path`` by name; None when it cannot be parsed."""
        if path not in self.files:
            self.files[path] = self._from_store(path) or _checksums_of(_units(self.root, path))
        return self.files[path]

    def _from_store(self, path: str) -> dict[str, str] | None:
        hashes, units = self._store_record()
        recorded = hashes.get(path)
        if recorded is None or path not in units:
            return None
        try:
            if file_checksum((self.root / path).read_bytes()) != recorded:
                return None
        except OSError:
            return None
        found = {name: value for name, value in units[path].items() if value is not None}
        if any(value.startswith("unparsable-") for value in found.values()):
            return None  # parsing says so again, as for a file the store never saw
        return found

    def _store_record(self) -> tuple[dict[str, str | None], dict[str, dict[str, str | None]]]:
        """The store's raw hash of each file and its units' checksums, read once."""
        if self._recorded is None:
            self._recorded = {}, {}
            if store_path(self.root).exists():
                with (
                    suppress(StoreError, OSError, sqlite3.Error, ValueError),
                    DependencyStore(self.root, create=False, read_only=True) as store,
                ):
                    self._recorded = store.file_hashes(), store.unit_checksums()
        return self._recorded

    def get(self, key: str) -> str | None:
        try:
            return self._values[key]
        except KeyError:
            value = self._values[key] = self._get(key)
            return value

    def _get(self, key: str) -> str | None:
        path, _, name = key.partition("::")
        units = self.units(path)
        if units is None:
            return None
        if name == TOP_LEVEL:
            return _top_level(units)
        if name == DOCSTRINGS:
            return _docstrings(units)
        body = units.get(name or MODULE)
        if not name or body is None:
            return body
        # A function's verdict holds for its body, its header (defaults, decorators) and
        # its docstring (a test can read ``__doc__``).
        parts = [body, units.get(header_name(name)), units.get(doc_name(name))]
        return ":".join(part for part in parts if part is not None)


def _top_level(units: Mapping[str, str]) -> str:
    """One checksum of every unit of a file but its functions' bodies, headers, default
    values and docstrings (a function's own checksum holds those, see ``Checksums``: its
    body unit holds its default values)."""
    digest = xxhash.xxh3_64()
    for name, value in sorted(units.items()):
        if is_place(name):  # where code sits: any edit moves it, as before (``Checksums``)
            continue
        function = name.removesuffix(DOC).removesuffix(DEFAULTS)
        if header_name(function) not in units and body_name(name) is None:
            digest.update(f"{name}={value}\0".encode())
    return digest.hexdigest()


def _docstrings(units: Mapping[str, str]) -> str:
    """One checksum of the docstrings of a file's functions (``doc_reads``)."""
    digest = xxhash.xxh3_64()
    for name, value in sorted(units.items()):
        if name.endswith(DOC) and header_name(name.removesuffix(DOC)) in units:
            digest.update(f"{name}={value}\0".encode())
    return digest.hexdigest()


def _checksums_of(units: FileUnits | None) -> Mapping[str, str] | None:
    return None if units is None else units.checksums


def tests_fingerprint(root: Path, checksums: Checksums) -> str:
    """Hash of the module part and of the unit names of every test file: a new or removed
    test changes it (a ``def`` is a unit of its own, not part of the module's)."""
    digest = xxhash.xxh3_64()
    for path in python_files(root):
        rel = path.relative_to(root).as_posix()
        if is_test_path(rel):
            units = checksums.units(rel)
            names = ",".join(sorted(units)) if units is not None else ""
            digest.update(f"{rel}={checksums.get(rel + '::' + MODULE)}:{names}\0".encode())
    return digest.hexdigest()


def load_state(root: Path, context: str) -> dict[str, Any]:
    """The entries saved by the last analysis under ``context``, by function key. The
    store is a cache here: one that cannot be used means no entries."""
    try:
        with DependencyStore(root) as store:
            return store.extreme_verdicts(context)
    except (StoreError, OSError, sqlite3.Error, ValueError):
        return {}


def has_state(root: Path) -> bool:
    """Whether an earlier analysis saved verdicts that this one may reuse."""
    if not store_path(root).exists():
        return False
    try:
        with DependencyStore(root, create=False, read_only=True) as store:
            return store.has_extreme_verdicts()
    except (StoreError, OSError, sqlite3.Error, ValueError):
        return False


def save_state(
    root: Path, context: str, entries: dict[str, Any], previous: dict[str, Any] | None = None
) -> None:
    """Save ``entries``; those that are the very entries ``load_state`` returned under
    ``context`` (``previous``: kept as they were) are not written again."""
    unchanged = {key for key, e in entries.items() if (previous or {}).get(key) is e}
    # A store that cannot be used (corrupt, another reks's schema) is reported by test
    # selection; the analysis just runs everything again next time.
    with suppress(StoreError, OSError, sqlite3.Error), DependencyStore(root) as store:
        store.save_extreme_verdicts(context, entries, unchanged)


def run_deps(units: Iterable[str]) -> set[str]:
    """The units whose edit can change the verdict of a run that executed ``units``: those,
    and the code outside function bodies of their files (``TOP_LEVEL``)."""
    units = set(units)
    # A few files, many units; docstrings alone are no code run (``doc_reads``).
    files = {unit.partition("::")[0] for unit in units if not unit.endswith(DOCSTRINGS)}
    return units | {f"{path}::{TOP_LEVEL}" for path in files}


def top_level(unit: str) -> str:
    """The ``TOP_LEVEL`` pseudo-unit of the file of ``unit`` (or of a test's node id)."""
    return unit.partition("::")[0] + "::" + TOP_LEVEL


def run_checksums(
    results: Iterable[TransformationResult], checksums: Checksums
) -> dict[str, str | None]:
    """The checksum now of every unit some run of ``results`` depends on (``run_deps``):
    what the editor compares a saved file with (``quick``)."""
    keys = {key for r in results if r.units is not None for key in run_deps(r.units)}
    return {key: checksums.get(key) for key in sorted(keys)}


def result_to_state(result: TransformationResult, checksums: Checksums) -> dict[str, Any]:
    row: dict[str, Any] = {
        "body": result.transformation.body,
        "verdict": result.verdict.value,
        "tests": result.tests,
        "reason": result.reason,
        "detected_by": result.detected_by,
        "duration": result.duration,
    }
    if result.units is not None:
        # What the transformed run executed, as it was (see ``reuse``).
        units = result.units
        row["units"] = units
        row["deps"] = {key: checksums.get(key) for key in sorted(run_deps(units))}
    if result.on_disk:
        row["on_disk"] = True
    return row


def result_from_state(function: FunctionInfo, row: dict[str, Any]) -> TransformationResult:
    return TransformationResult(
        transformation=Transformation(function.path, function.qualname, function.line, row["body"]),
        verdict=Verdict(row["verdict"]),
        tests=list(row.get("tests", [])),
        reason=row.get("reason", ""),
        detected_by=row.get("detected_by"),
        duration=float(row.get("duration", 0.0)),
        units=row.get("units"),
        on_disk=bool(row.get("on_disk")),
    )


def entry(
    function: FunctionInfo,
    runners: list[str],
    tests: dict[str, dict[str, Any]],
    checksums: Checksums,
    test_units: dict[str, frozenset[str]] | None = None,
) -> dict[str, Any]:
    """What must stay the same for the function's verdicts to hold: its own unit, what the
    original run of each runner depends on (``run_deps`` of the units it ran), and each
    runner's file's ``TOP_LEVEL``. ``test_units``: each test's units, kept across the
    functions (the same test covers many)."""
    cache = {} if test_units is None else test_units
    ran: set[str] = set()
    for nodeid in runners:
        units = cache.get(nodeid)
        if units is None:
            units = cache[nodeid] = frozenset(tests[nodeid]["units"])
        ran.update(units)
    # Over the union: each file of hundreds of tests' units is looked at once, not per test
    # (most of planning tomlkit's analysis).
    deps = run_deps(ran)
    deps.add(function.key)
    # Each runner's file once (humanize: 30 functions of ~360 runners in a few files).
    deps.update(top_level(path) for path in {nodeid.partition("::")[0] for nodeid in runners})
    return {
        "checksum": function.checksum,
        "line": function.line,
        "deps": {unit: checksums.get(unit) for unit in sorted(deps)},
        "results": [],
        "tests": [],
        "runners": sorted(runners),
    }


def untouched(
    previous: dict[str, Any], root: Path, analysed: dict[str, FunctionInfo]
) -> dict[str, Any]:
    """State entries of functions outside this run's paths are kept for later runs."""
    return {
        key: entry
        for key, entry in previous.items()
        if key not in analysed and (root / key.partition("::")[0]).exists()
    }


def previous_runners(
    previous: dict[str, Any], functions: list[FunctionInfo], checksums: Checksums
) -> list[str] | None:
    """The tests that may execute ``functions`` now, when all that changed since the last
    analysis, of what their tests ran, are the bodies of these very functions or of other
    analysed functions of which the same holds: a test whose original run executed none
    of those runs as it did, so it reaches one of ``functions`` only if it reached it, or
    one of the changed functions, before; None when that is not known. What a changed
    function that ran at import computed then reaches tests that never ran it: its entry's
    runners are those that may see it too (``observation.ImportTimeTests``, the model its
    own verdicts rest on), so no other test runs differently."""
    keys = {function.key for function in functions}
    found: set[str] = set()
    todo, seen = list(keys), set(keys)
    while todo:
        key = todo.pop()
        saved = previous.get(key)
        if saved is None or "runners" not in saved:
            return None
        found.update(saved["runners"])
        for unit, value in saved["deps"].items():
            if unit not in seen and checksums.get(unit) != value:
                seen.add(unit)  # an edited function's own tests, and what changed of theirs
                todo.append(unit)
    return sorted(found)
