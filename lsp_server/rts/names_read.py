"""The names a test reads, as ``rts.binding_reads`` follows them: read anywhere or only as
a module's globals, the step from one (name, scope) pair to the bindings it finds, and
what following a test file's imports found once for all its tests (``FollowedBase``).

A pair is (name, None) for a name read anywhere, (name, path) for one read only as a
global of module ``path`` (where no other module's binding can be found)."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from typing import NamedTuple

from lsp_server.rts.code_read_targets import SOURCE_READS, TOLD, TOLDABLE, UNTOLD_MARK
from lsp_server.rts.line_stores import (
    LINE_LOADED,
    STORED_LINE_NAMES,
    line_names_read,
    loaded_marks,
)
from lsp_server.rts.lookups import (
    ANNOTATION_READS,
    ATTRIBUTE_LOOKUP,
    BODY_READS,
    CAPTURED_LOG_TEXT,
    CODE_LINE_READS,
    DOC_READS,
    OTHER_CODES,
    SIGNATURE_READS,
    SOURCE_TEXT_READS,
)
from lsp_server.rts.module_docstring import MODULE_DOC
from lsp_server.rts.unit_names import HEADER, read_parts

Pair = tuple[str, str | None]

_SIGNATURE_SHOWS = ANNOTATION_READS | {"help", "pydoc"}
"""Reads that show a function's default values and annotations besides the signature
reads: annotations (``get_type_hints``...), help (pydoc renders signatures)."""


Step = tuple[frozenset[int], frozenset[Pair]]
"""The ids of the binding units a pair's name finds among a test's modules, and the pairs
their statements read at import."""
NO_STEP: Step = (frozenset(), frozenset())

NO_SPLIT: tuple[frozenset[str], ...] = (frozenset(), frozenset())
"""What most units' statements read at import (read anywhere, read only as the module's
globals), shared: every object kept costs each of the project's full garbage collections
a visit."""


class PartsRead(NamedTuple):
    """Which parts of the functions whose headers a test depends on it read besides what
    it ran (``rts.seen_bodies``): code (``lookups.BODY_READS``), default values and
    annotations (``lookups.SIGNATURE_READS``, ``_SIGNATURE_SHOWS``), docstrings
    (``lookups.DOC_READS``); and whether it read line numbers or source text
    (``lookups.LINE_READS``) other than from what a told code read shows (which holds
    the read function's place: ``rts.code_read_units``): then it depends on the places
    of the code it ran (``rts.position_units``); whether among those reads some show
    source text (``lookups.SOURCE_TEXT_READS``): then on their comments too."""

    code: bool
    signatures: bool
    docs: bool
    lines: bool = False
    text: bool = False

    def union(self, other: PartsRead) -> PartsRead:
        return PartsRead(*(mine or theirs for mine, theirs in zip(self, other, strict=True)))


@dataclass
class NamesRead:
    """The names a test reads: anywhere, and only as globals of a module (by path)."""

    anywhere: set[str]
    by_module: dict[str, set[str]]

    def add(self, path: str, split: tuple[frozenset[str], ...]) -> None:
        if not (TOLDABLE.isdisjoint(split[0]) and TOLDABLE.isdisjoint(split[1])):
            self._untell(split[0] | split[1])
        self.anywhere |= split[0]
        if split[1]:
            self.by_module.setdefault(path, set()).update(split[1])
        for key in split[2] if len(split) > 2 else ():  # another module's globals
            name, origin = read_parts(key)
            self.by_module.setdefault(origin or path, set()).add(name)
            if name in STORED_LINE_NAMES:
                self.anywhere.add(LINE_LOADED + name)
        # A statement's reads may be loads of a line name (``rts.line_stores``).
        if not (STORED_LINE_NAMES.isdisjoint(split[0]) and STORED_LINE_NAMES.isdisjoint(split[1])):
            self.anywhere |= loaded_marks(split[0] | split[1])

    def _untell(self, names: Set[str]) -> None:
        """A statement read at import spells these code reads: the reads told as the test
        ran (their ``TOLD`` twins) are not all of them."""
        self.anywhere.difference_update(TOLD + name for name in TOLDABLE.intersection(names))

    def follow(self, pairs: Set[Pair]) -> None:
        """Add the names of ``pairs``."""
        for name, path in pairs:
            if name in TOLDABLE:
                self._untell({name})
            if name in STORED_LINE_NAMES:  # a statement's read: ``rts.line_stores``
                self.anywhere.add(LINE_LOADED + name)
            if path is None:
                self.anywhere.add(name)
            else:
                self.by_module.setdefault(path, set()).add(name)

    def pairs(self) -> set[Pair]:
        """Every name read, as a pair."""
        out: set[Pair] = {(name, None) for name in self.anywhere}
        out.update((name, path) for path, read in self.by_module.items() for name in read)
        return out

    def flags(self) -> PartsRead:
        """Which parts of functions the names read show (a code read whose ``TOLD`` twin is
        among them, and no ``UNTOLD_MARK`` one, shows what was told instead:
        ``rts.code_read_marks``). ``__doc__`` read only as a module's global is that
        module's docstring (``rts.module_docstring``), or what a statement there rebound it
        to (pyjwt's ``__doc__ = f"..."``), never a function's: copying one spells
        ``.__doc__``, an attribute, which is read anywhere."""
        names = set().union(*self.by_module.values())
        names.discard(MODULE_DOC)
        names |= self.anywhere
        code = [name for name in BODY_READS.intersection(names) if not _told(name, names)]
        lines = [name for name in line_names_read(names) if not _told_lines(name, names)]
        return PartsRead(
            bool(code),
            not (SIGNATURE_READS.isdisjoint(names) and _SIGNATURE_SHOWS.isdisjoint(names)),
            not DOC_READS.isdisjoint(names),
            bool(lines) or reads_captured_log_text(names),
            not SOURCE_TEXT_READS.isdisjoint(lines),
        )

    def scoped(self, among: Set[str]) -> set[Pair]:
        """The pairs of the names read that are among ``among``."""
        out: set[Pair] = {(name, None) for name in self.anywhere & among}
        out.update((name, path) for path, read in self.by_module.items() for name in read & among)
        return out


def split_pairs(path: str, split: tuple[frozenset[str], ...], among: Set[str]) -> set[Pair]:
    """The pairs of the names among ``among`` that ``NamesRead.add(path, split)`` adds."""
    out: set[Pair] = {(name, None) for name in split[0] & among}
    out.update((name, path) for name in split[1] & among)
    return out


def _told(name: str, names: Set[str]) -> bool:
    """Whether the code read ``name`` was told everywhere it was read (its ``TOLD`` twin is
    among ``names``, and no ``UNTOLD_MARK`` one)."""
    return TOLD + name in names and UNTOLD_MARK + name not in names


def _told_lines(name: str, names: Set[str]) -> bool:
    """Whether the line numbers or source text ``name`` reads come from what a told code
    read shows, which holds the layout of its file (``rts.code_read_units``): a source read
    told, or a code object's line attribute while every ``__code__`` read was told and code
    objects were taken from nothing else (a frame, a generator, a coroutine)."""
    if name in SOURCE_READS:
        return _told(name, names)
    return name in CODE_LINE_READS and _told("__code__", names) and OTHER_CODES.isdisjoint(names)


def reads_captured_log_text(names: Set[str]) -> bool:
    """Whether a test using pytest's ``caplog`` reads the text it captured: pytest formats
    each record with a format that spells the line it was logged at (``rts.logged_lines``)."""
    return "caplog" in names and not CAPTURED_LOG_TEXT.isdisjoint(names)


@dataclass(frozen=True)
class FollowedBase:
    """What ``BindingReads.read`` found from units and names many tests share (their file's
    import closure and the names it reads), and what following more from there needs:
    the modules, the pairs read and followed, the names read anywhere, the parts of
    functions read, and the ``NAMES`` units of each name read only as a module's global
    (a test reading it anywhere replaces them by the name's own)."""

    ids: frozenset[int]
    names: frozenset[str]
    paths: frozenset[str]
    found: frozenset[int]
    pairs: frozenset[Pair]
    anywhere: frozenset[str]
    flags: PartsRead
    scoped: dict[str, tuple[int, ...]]


def attribute_prefixes(names: Set[str]) -> list[str]:
    """The prefixes of the names a test looked up on a class or its instance
    (``lookups.ATTRIBUTE_LOOKUP`` followed by one, in ``names``); none is needed when the
    empty one (any name) is among them."""
    found = sorted(n[len(ATTRIBUTE_LOOKUP) :] for n in names if n.startswith(ATTRIBUTE_LOOKUP))
    return [""] if "" in found else found


def binds_prefixed_attribute(unit_name: str, prefix: str) -> bool:
    """Whether a class member's or alias's unit (``C.x``, ``C.m.<def>``, ``C.D.x``) binds
    an attribute whose name starts with ``prefix`` (any part after the class's: a nested
    class's attribute counts too, the conservative side)."""
    parts = unit_name.removesuffix(HEADER).split(".")[1:]
    return any(part.startswith(prefix) for part in parts)


@dataclass(frozen=True)
class UnitInfo:
    """Of a unit a test depends on: its file, whether it is the module unit, what its
    statement (and its class's) reads at import, and its class's id (-1: none)."""

    path: str
    is_module: bool
    splits: tuple[tuple[frozenset[str], ...], ...]
    owner: int
