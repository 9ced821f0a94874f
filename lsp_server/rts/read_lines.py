"""The lines of a code object that spell a read of code, signatures, docstrings or lines.

A function spelling one of ``lookups.BODY_READS``, ``lookups.SIGNATURE_READS`` or
``lookups.DOC_READS`` (tomlkit's ``items.item()`` calls ``inspect.signature`` only on custom
encoders, in a branch most tests never take) makes a test that ran it see the body, default
values or docstring of every function whose header it depends on (``rts.seen_bodies``);
one spelling ``lookups.LINE_READS`` (typeguard's transformer reads ``node.lineno`` only as
it instruments) the places of the code it ran (``rts.position_units``).
The read happens only where an instruction spelling the name runs, so on Python 3.12+ the
tracer watches the lines of those instructions (sys.monitoring LINE events, enabled on
these rare code objects alone) and the names count for a test only when one of the lines
ran in it (``rts.attribution``).

Sound because every instruction runs after a LINE event of its line: execution enters a
line from another one, or starts the code object there. Comprehensions are inlined in the
code object (3.12); a lambda or nested function is a code object of its own, its reads
counted when its own lines run. Generators and coroutines keep the reads whole: a frame
resumed mid-line in a later test would run the instruction without a LINE event there.

A function whose only lookups by string read a frame's namespace (jinja's
``debug.fake_traceback`` reads ``tb.tb_frame.f_locals`` only for a traceback through template
code) may read any name, but only where such a read runs: those lines are watched too, and
told apart (``frame_key``) so that they count for that lookup alone.
"""

from __future__ import annotations

import dis
import inspect
from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass, field
from sys import _getframe
from types import CodeType
from typing import Any

from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.frame_namespaces import (
    TOLD_FRAME_READS,
    evaluated_code_key,
    frame_module_keys,
    told_names,
)
from lsp_server.rts.identity import identity
from lsp_server.rts.instance_owners import library_instances, no_namespaces, owner_lines
from lsp_server.rts.kept_code_analyses import kept_by_content
from lsp_server.rts.line_stores import twins_of
from lsp_server.rts.lookup_sites import lookup_sites
from lsp_server.rts.lookups import (
    ATTRIBUTE_LOOKUP,
    BODY_READS,
    DOC_READS,
    DYNAMIC_NAMES,
    FRAME_NAMESPACES,
    INSPECT_SIGNATURES,
    LINE_READS,
    SIGNATURE_READS,
)
from lsp_server.rts.module_presence import told_listing
from lsp_server.rts.reads import (
    EVERY_NAME,
    code_reads,
    instruction_arguments,
    string_parts,
)

_READ_NAMES = BODY_READS | SIGNATURE_READS | DOC_READS | LINE_READS
# Namespaces read by any name only where an instruction spelling one runs.
_LINE_NAMESPACES = FRAME_NAMESPACES | {"__dict__"}
_SPELLED = _READ_NAMES | INSPECT_SIGNATURES
_RESUMABLE = (
    inspect.CO_GENERATOR
    | inspect.CO_COROUTINE
    | inspect.CO_ASYNC_GENERATOR
    | inspect.CO_ITERABLE_COROUTINE
)


@dataclass(frozen=True)
class ReadLines:
    """The code-reading names a code object reads (``rts.reads``) and the lines spelling
    them; for code whose only lookups by string read a frame's namespace
    (``_frames_only``), the lines reading one (``frame_lines``): it reads any name only
    where one of those ran."""

    names: frozenset[str]
    lines: frozenset[int]
    frame_lines: frozenset[int] = frozenset()
    owners: Mapping[int, frozenset[str]] = field(default_factory=dict)
    """Frame lines whose reads are of ``__dict__``s of locals told as the line runs
    (``rts.instance_owners``) -> those locals."""
    frames: Mapping[int, frozenset[str]] = field(default_factory=dict)
    """Frame lines whose reads are of the namespaces of frames held by locals told as the
    line runs (``rts.frame_namespaces``) -> those locals."""


def frame_key(key: int) -> int:
    """The key under which the frame lines of the code ``key`` (``identity(code)``, never
    negative) are told apart from its other read lines, in the same sets and maps."""
    return ~key


def instance_key(key: int) -> int:
    """The key under which the frame lines of the code ``key`` count when every ``__dict__``
    they read was told to belong to no namespace (``instance_owners.no_namespaces``): past
    the range of ``identity`` and of ``frame_key`` (both within 64 bits)."""
    return key + (1 << 64)


def _spells_read(code: CodeType) -> bool:
    """Cheap first look: whether ``code`` names one of the reads at all."""
    if not _SPELLED.isdisjoint(code.co_names) or not _LINE_NAMESPACES.isdisjoint(code.co_names):
        return True
    return any(not _SPELLED.isdisjoint(string_parts(const)) for const in code.co_consts)


def _frames_only(code: CodeType) -> bool:
    """Whether the only lookups by string ``code`` spells are reads of a frame's namespace
    (``tb.tb_frame.f_locals``) or of an object's ``__dict__`` whose names no call site
    tells as it runs (``runtime_lookups.lookup_sites``: ``record.__dict__[key]``, handed
    to a call). Any other spelling (``globals``, ``getattr``, a variable so named from an
    enclosing function) keeps the code whole."""
    spelled = DYNAMIC_NAMES.intersection([*code.co_names, *code.co_freevars, *code.co_cellvars])
    if not spelled or not spelled <= _LINE_NAMESPACES:
        return False
    return "__dict__" not in spelled or lookup_sites(code) is None


def read_lines(code: CodeType) -> ReadLines | None:
    """The code-reading names ``code`` reads and the lines spelling them, and its frame
    lines; None when it has neither, or when its lines cannot tell (a generator, an
    instruction without a line, a name no instruction spells)."""
    if code.co_flags & _RESUMABLE or not _spells_read(code):
        return None
    return _kept_read_lines(code)


@kept_by_content
def _kept_read_lines(code: CodeType) -> ReadLines | None:
    """``read_lines`` of ``code``, which spells a read; kept across sessions
    (``rts.kept_code_analyses``)."""
    names, global_only, _ = code_reads(code)
    wanted = (names | global_only) & _READ_NAMES
    frames = _frames_only(code)
    if not wanted and not frames:
        return None
    line_at = {
        offset: line for start, end, line in code.co_lines() for offset in range(start, end, 2)
    }
    spelled: set[str] = set()
    lines: set[int] = set()
    frame_lines: set[int] = set()
    for offset, opcode, argval in instruction_arguments(code):
        found = string_parts(argval) & wanted
        if "__signature__" in wanted and argval in INSPECT_SIGNATURES:
            found.add("__signature__")  # ``inspect.signature``: see ``lookups``
        frame = frames and opcode in dis.hasname and argval in _LINE_NAMESPACES
        if not found and not frame:
            continue
        line = line_at.get(offset)
        if line is None:
            return None
        if found:
            spelled |= found
            lines.add(line)
        if frame:
            frame_lines.add(line)
    if spelled != wanted or frames != bool(frame_lines):
        return None
    owners = owner_lines(code, line_at, _LINE_NAMESPACES) if frame_lines else {}
    held = owner_lines(code, line_at, _LINE_NAMESPACES, TOLD_FRAME_READS) if frame_lines else {}
    return ReadLines(frozenset(wanted), frozenset(lines), frozenset(frame_lines), owners, held)


def own_signature(code: CodeType, file_units: FileUnits) -> bool:
    """Whether the ``__signature__`` read ``reads.code_reads`` finds in ``code`` is only a
    global ``signature`` (or ``Signature``) that its module binds itself, not by importing
    it (jmespath's ``@signature(...)`` decorator): no signature is read there. Code that
    spells ``__signature__`` or uses ``inspect`` keeps the read."""
    spelled = set(code.co_names).union(*map(string_parts, code.co_consts))
    if "__signature__" in spelled or "inspect" in spelled:
        return False
    used = INSPECT_SIGNATURES & spelled
    own = file_units.top_names - file_units.import_origins.keys()
    return bool(used) and used <= own


@dataclass
class ReadLineWatch:
    """The tracer's side: the lines it watches in each code object (``watch``), and the
    code whose watched lines ran since the last ``take``. ``seen``: whether the tracer
    tells at all (3.12+); else every such code that ran counts as reading."""

    seen: bool
    is_project_file: Callable[[str], bool] = lambda _: True
    lines: dict[int, frozenset[int]] = field(default_factory=dict)  # by identity(code)
    ran: set[int] = field(default_factory=set)  # by identity(code), or its ``frame_key``
    owners: dict[int, Mapping[int, frozenset[str]]] = field(default_factory=dict)
    """By ``frame_key``: ``ReadLines.owners``."""
    frames: dict[int, Mapping[int, frozenset[str]]] = field(default_factory=dict)
    """By ``frame_key``: ``ReadLines.frames``."""

    def watch(self, code: CodeType) -> bool:
        """Whether ``code`` has lines to watch (they are kept; its frame lines under
        ``frame_key``)."""
        found = read_lines(code)
        if found is not None:
            self.lines[identity(code)] = found.lines
            if found.frame_lines:
                self.lines[frame_key(identity(code))] = found.frame_lines
            if found.owners:
                self.owners[frame_key(identity(code))] = found.owners
            if found.frames:
                self.frames[frame_key(identity(code))] = found.frames
        return found is not None

    def evaluated(self, code: CodeType) -> None:
        """Code made from a string ran (``eval``, ``exec``): what it reads counts here
        (``rts.frame_namespaces``), on every Python."""
        if code.co_filename[:1] == "<":
            self.ran.add(evaluated_code_key(code))

    def line_event(self, disable: object) -> Callable[[CodeType, int], Any]:
        """The LINE callback: notes a watched line (a frame line under ``frame_key``), and
        disables each line until events restart (the next test). A frame line whose
        ``__dict__`` owners are library instances (``instance_owners``) reads nothing this
        time and stays watched: another run may hold a project object. One whose owners
        hold no namespace counts under ``instance_key``, and also stays watched: another
        run may hold a module there. One whose frames' namespaces are told counts the
        modules' (``rts.frame_namespaces``) and stays watched: another run may hold another."""
        lines, ran, owners, getframe = self.lines, self.ran, self.owners, _getframe
        is_project_file, frames = self.is_project_file, self.frames

        def on_line(code: CodeType, line: int) -> Any:
            key = identity(code)
            if line in lines.get(key, ()):
                ran.add(key)
            if line in lines.get(frame_key(key), ()):
                told = owners.get(frame_key(key), {}).get(line)
                if told is not None and library_instances(getframe(1), told, is_project_file):
                    return None
                if told is not None and no_namespaces(getframe(1), told):
                    ran.add(instance_key(key))
                    return None
                held = frames.get(frame_key(key), {}).get(line)
                if held is not None:
                    modules = frame_module_keys(getframe(1), held, is_project_file)
                    if modules is not None:
                        ran.update(modules)
                        return None
                ran.add(frame_key(key))
            return disable

        return on_line

    def take(self) -> set[int]:
        """By identity: the code whose watched lines ran since the last call."""
        taken = set(self.ran)
        self.ran.clear()
        return taken


_ANY_NAME = frozenset([EVERY_NAME])


class LineReads:
    """The attribution's side: by code (``identity``), the names it reads only where their
    lines run (``read_lines``); under ``frame_key``, any name (``EVERY_NAME``) for code
    whose only lookups by string read a frame's namespace. ``seen``: whether windows tell
    which code ran such a line (3.12+); else nothing is noted and every read counts.
    ``python_rel``: the project path of a module file a told frame read
    (``rts.frame_namespaces``)."""

    def __init__(
        self, seen: bool, python_rel: Callable[[str], str | None] = lambda _: None
    ) -> None:
        self.seen = seen
        self._python_rel = python_rel
        self._reads: dict[int, frozenset[str]] = {}

    def note(
        self, code: CodeType, names: frozenset[str], global_only: frozenset[str], dynamic: bool
    ) -> tuple[frozenset[str], frozenset[str], bool]:
        """What ``code`` reads (``reads.code_reads``: ``dynamic``, whether its bytecode
        may look names up by string) wherever it runs; the rest is kept here. Told asks of
        ``sys.modules`` list only where their events say (``rts.module_presence``)."""
        names = told_listing(code, names) if self.seen else names
        sites = read_lines(code) if self.seen else None
        if sites is None:
            return names, global_only, dynamic
        key = identity(code)
        # A line name's mark (``rts.line_stores``) counts where the name does.
        marks = names & twins_of(sites.names)
        self._reads[key] = sites.names & (names | global_only) | marks
        if dynamic and sites.frame_lines:
            self._reads[frame_key(key)] = self._reads[instance_key(key)] = _ANY_NAME
            dynamic = False
        return names - sites.names - marks, global_only - sites.names, dynamic

    def settle(self, code: CodeType, kind: str | None) -> str | None:
        """The lookup kind of a function's ``code`` once its lines tell: one whose syntax
        reads any name (``kind`` "*") only by reading a frame's namespace does so only
        where such a line runs; one whose syntax reads none there (``f_globals.get("name")``)
        reads no more when those lines run. One whose syntax reads its own ``self.__dict__``
        (``ATTRIBUTE_LOOKUP``: an instance's attributes or a class's members) still reads
        any name where a line reads the ``__dict__`` of a module (``Cls.names(module)``):
        unless those lines are watched, it reads any name wherever it runs."""
        key = identity(code)
        attribute = kind is not None and kind.startswith(ATTRIBUTE_LOOKUP)
        if frame_key(key) not in self._reads:
            return "*" if attribute and "__dict__" in code.co_names else kind
        if kind == "*":
            return None
        # Settled once per code object, but the kind may be asked again.
        self._reads.pop(instance_key(key), None)
        if not attribute:
            del self._reads[frame_key(key)]
        return kind

    def forget(self, key: int) -> None:
        """Code ``key`` reads nothing where it runs (a class body)."""
        self._reads.pop(key, None)
        self._reads.pop(frame_key(key), None)
        self._reads.pop(instance_key(key), None)

    def whole(self, key: int) -> frozenset[str]:
        """What code ``key`` reads where any of its lines ran (at collection or import:
        every line counts)."""
        reads = self._reads
        return reads.get(key, frozenset()).union(
            reads.get(frame_key(key), ()), reads.get(instance_key(key), ())
        )

    def ran(self, keys: Set[int]) -> frozenset[str]:
        """What the code whose watched lines ran (``keys``, as ``ReadLineWatch.take``
        gives them) reads there, and what told frame reads and evaluated code read."""
        reads = self._reads
        found = frozenset().union(*(reads[key] for key in keys & reads.keys()))
        return found.union(told_names(keys, self._python_rel)) if keys else found
