"""Known-failing refactoring shapes of the installed engines, for REKS's trust-but-verify.

``reks engine-test --write-known-failures`` learns the shapes from a run: for each failure
group of an engine, the static ``features`` every failing program of the group shares.
``matches(kind, source, offset)`` tells whether a refactoring about to be applied has such
a shape; REKS then treats the refactoring as a hand edit (its tests run) instead of
trusting it.

The shapes learnt for the engines reks ships with are packaged as ``known_failures.json``
next to this module (read-only: an installed package is never written). That file is
generated, never edited by hand: after a change to the engines, the generators or the
features, regenerate it with ``reks engine-test --bound 2 --engines reks,rope
--write-known-failures lsp_server/trust/known_failures.json`` (its ``generated_by`` field
records the command; a test checks that the file is exactly what ``dumps`` writes); shapes learnt on
the user's machine go to ``user_path()`` and are in force beside the packaged ones; so is the
shape of a refactoring whose skipped tests failed later (``learn``, from
``lsp_server.trust.verification``). A shape with no feature
matches every refactoring of its kind: that is the safe answer when nothing narrower
separates the failing programs from the passing ones.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from typing import TYPE_CHECKING, Any

from lsp_server.astgen import oracles
from lsp_server.astgen.features import request_features
from lsp_server.project.text import write_json_atomic

if TYPE_CHECKING:
    from lsp_server.astgen.driver import RunOutcome
    from lsp_server.astgen.gen import Labelled
    from lsp_server.astgen.program import Case
    from lsp_server.astgen.report import FailureGroup

DATA_PATH = os.path.join(os.path.dirname(__file__), "known_failures.json")
"""The packaged shapes (read-only)."""
FORMAT_VERSION = 1
ENGINES_FOR_REKS = ("reks", "rope")
"""Engines whose shapes are recorded: rope through reks, and rope alone."""


@dataclass(frozen=True)
class FailureShape:
    engine: str
    refactoring: str
    oracle: str
    features: frozenset[str]
    signature: tuple[tuple[str, str], ...]
    """The generator labels of the failure group, for people reading the file."""
    count: int
    example: str
    """The minimal failing program (its refactored file)."""
    detail: str


def shapes_from(
    outcome: RunOutcome,
    groups: list[FailureGroup],
    cases: list[tuple[str, Labelled[Case]]],
    engines: tuple[str, ...] = ENGINES_FOR_REKS,
) -> list[FailureShape]:
    """One shape per failure group of ``engines``; identical shapes merge, and shapes that
    a more general shape of the same engine and refactoring covers are left out."""
    merged: dict[tuple[str, str, str, frozenset[str]], FailureShape] = {}
    for group in groups:
        if group.engine not in engines or group.example_case is None:
            continue
        if group.oracle == oracles.REFUSAL:
            # Precondition violations live in the request's arguments (an invalid new
            # name), which ``matches`` does not see; their empty feature set would match
            # every request of the kind. reks checks those arguments itself.
            continue
        shared = _shared_features(group, cases)
        example_target = group.example_case.target
        shape = FailureShape(
            engine=group.engine,
            refactoring=group.kind,
            oracle=group.oracle,
            features=shared,
            signature=group.signature,
            count=len(group.members),
            example=group.example_case.program.file_map.get(example_target.path, ""),
            detail=group.detail,
        )
        key = (shape.engine, shape.refactoring, shape.oracle, shape.features)
        if key in merged:
            shape = _merged(merged[key], shape)
        merged[key] = shape
    # A shape whose features include another shape's (same engine and refactoring) can
    # never change what ``matches`` answers: drop it, keeping the file small and readable.
    kept = {
        key: shape
        for key, shape in merged.items()
        if not any(
            other.engine == shape.engine
            and other.refactoring == shape.refactoring
            and other.features < shape.features
            for other in merged.values()
        )
    }
    return [kept[k] for k in sorted(kept, key=lambda k: (k[0], k[1], k[2], sorted(k[3])))]


def _shared_features(
    group: FailureGroup, cases: list[tuple[str, Labelled[Case]]]
) -> frozenset[str]:
    """The request features every failing program of ``group`` has."""
    shared: frozenset[str] | None = None
    for member in group.members:
        case = cases[member.index][1].value
        target = case.target
        files = case.program.file_map
        text = files.get(target.path, "")
        found = request_features(target.kind, text, target.offset, target.end, files, target.path)
        shared = found if shared is None else shared & found
    return shared or frozenset()


def _merged(old: FailureShape, new: FailureShape) -> FailureShape:
    """Two groups of the same shape: counted together, the smaller example kept."""
    keep = old if (len(old.example), old.example) <= (len(new.example), new.example) else new
    return FailureShape(
        keep.engine, keep.refactoring, keep.oracle, keep.features, keep.signature,
        old.count + new.count, keep.example, keep.detail,
    )  # fmt: skip


def dumps(shapes: list[FailureShape], versions: dict[str, str], command: str = "") -> str:
    """The shapes as the JSON file ``load`` reads; ``command`` is the ``reks engine-test``
    command line that learnt them (the file is generated, never edited by hand)."""
    data = {
        "version": FORMAT_VERSION,
        "generated_by": command,
        "engines": {"rope": versions.get("rope", ""), "jedi": versions.get("jedi", "")},
        "shapes": [
            {
                "engine": s.engine,
                "refactoring": s.refactoring,
                "oracle": s.oracle,
                "features": sorted(s.features),
                "signature": [list(label) for label in s.signature],
                "count": s.count,
                "detail": s.detail,
                "example": s.example,
            }
            for s in shapes
        ],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class KnownFailures:
    rope_version: str
    shapes: tuple[FailureShape, ...]
    generated_by: str = ""
    jedi_version: str = ""

    @property
    def for_installed_rope(self) -> bool:
        """Whether the shapes were learnt with the rope that is installed now."""
        try:
            return metadata.version("rope") == self.rope_version
        except metadata.PackageNotFoundError:
            return False


def parse(data: dict[str, Any]) -> KnownFailures:
    if data.get("version") != FORMAT_VERSION:
        raise ValueError(f"unsupported known-failures format {data.get('version')!r}")
    shapes = tuple(
        FailureShape(
            engine=str(s["engine"]),
            refactoring=str(s["refactoring"]),
            oracle=str(s["oracle"]),
            features=frozenset(s["features"]),
            signature=tuple((str(d), str(v)) for d, v in s.get("signature", [])),
            count=int(s.get("count", 0)),
            example=str(s.get("example", "")),
            detail=str(s.get("detail", "")),
        )
        for s in data.get("shapes", [])
    )
    engines = data.get("engines", {})
    return KnownFailures(
        str(engines.get("rope", "")),
        shapes,
        str(data.get("generated_by", "")),
        str(engines.get("jedi", "")),
    )


def user_path() -> str:
    """Where ``reks engine-test --write-known-failures`` writes learnt shapes by default:
    ``$REKS_KNOWN_FAILURES``, else ``known_failures.json`` in the user's data folder."""
    explicit = os.environ.get("REKS_KNOWN_FAILURES")
    if explicit:
        return explicit
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(data_home, "reks", "known_failures.json")


def active_path() -> str:
    """Where learnt shapes are read from: the user's file if there is one, else the
    packaged file."""
    user = user_path()
    return user if os.path.exists(user) else DATA_PATH


def load(path: str | None = None) -> KnownFailures:
    """The shapes in ``path``, none if it is missing; without ``path``, the shapes in force."""
    if path is None:
        return in_force()
    if not os.path.exists(path):
        return KnownFailures("", ())
    with open(path, encoding="utf-8") as handle:
        return parse(json.load(handle))


def in_force() -> KnownFailures:
    """The packaged shapes plus those learnt on this machine: learnt shapes (written under
    an older reks) must not hide the shapes a newer one ships. A file named by
    ``$REKS_KNOWN_FAILURES`` replaces both: it is an explicit choice."""
    explicit = os.environ.get("REKS_KNOWN_FAILURES")
    paths = [active_path()] if explicit else [DATA_PATH, user_path()]
    stamps = tuple(os.path.getmtime(p) if os.path.exists(p) else -1.0 for p in paths)
    return _combined(tuple(paths), stamps)


@lru_cache(maxsize=4)
def _combined(paths: tuple[str, ...], stamps: tuple[float, ...]) -> KnownFailures:
    """The shapes of ``paths`` (cached while their modification times ``stamps`` hold)."""
    packaged, *rest = (load(path) for path in paths)
    learnt = rest[0] if rest else KnownFailures("", ())
    seen = {_key(s) for s in packaged.shapes}
    extra = tuple(s for s in learnt.shapes if _key(s) not in seen)
    return dataclasses.replace(packaged, shapes=packaged.shapes + extra)


def _key(shape: FailureShape) -> tuple[str, str, str, frozenset[str]]:
    return (shape.engine, shape.refactoring, shape.oracle, shape.features)


def matches(
    refactoring_kind: str,
    source: str,
    offset: int,
    end: int | None = None,
    engine: str = "reks",
    known: KnownFailures | None = None,
    project_files: Mapping[str, str] | None = None,
    path: str | None = None,
) -> FailureShape | None:
    """The most specific known-failing shape that performing ``refactoring_kind`` at
    ``offset`` (..``end`` for a selection) of ``source`` with ``engine`` has, or None.

    A shape matches when the request has every feature of the shape. A ``move``'s features
    are in its clients: ``project_files`` (root-relative path -> text before the move, the
    source file included) and ``path`` (the source file's path) tell how other modules
    import the moved global, or the renamed module. Without them any known ``move``
    failure matches every move (nothing tells the requests apart), as any
    ``rename-module`` failure matches every module rename."""
    if known is None:
        try:
            known = in_force()
        except OSError:
            return None
    candidates = [
        s for s in known.shapes if s.engine == engine and s.refactoring == refactoring_kind
    ]
    if not candidates:
        return None
    if refactoring_kind in ("move", "rename-module") and (project_files is None or path is None):
        found = frozenset().union(*(s.features for s in candidates))
    else:
        found = request_features(refactoring_kind, source, offset, end, project_files, path)
    fitting = [s for s in candidates if s.features <= found]
    if not fitting:
        return None
    return max(fitting, key=lambda s: (len(s.features), s.count, sorted(s.features)))


def learn(shape: FailureShape, path: str | None = None) -> bool:
    """Add ``shape`` to the user's shapes (``path``, default ``user_path()``), starting
    from the shapes in force so that none is lost; False when an equal shape is there."""
    path = path or user_path()
    source = path if os.path.exists(path) else active_path()
    data: dict[str, Any] = {"version": FORMAT_VERSION, "engines": {}, "shapes": []}
    if os.path.exists(source):
        with open(source, encoding="utf-8") as handle:
            data = json.load(handle)
    if any(_key(known) == _key(shape) for known in parse(data).shapes):
        return False
    entry = json.loads(dumps([shape], {}))["shapes"][0]
    data.setdefault("shapes", []).append(entry)
    write_json_atomic(path, data, indent=2)
    return True
