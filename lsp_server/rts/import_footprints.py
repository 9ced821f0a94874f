"""What ran while each project module was imported (its import footprint), by the
module's unit id: a test that depends on a module depends on what shaped it at import
and reads what that code read. Where a class hook ran (``__set_name__``,
``__init_subclass__``, a metaclass), the files whose class statements ran with it are
read whole: the hook may read every attribute of those classes, or register them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass, field
from inspect import CO_NEWLOCALS
from types import CodeType

from lsp_server.rts.tracing import CodeSet

GlobalsRead = dict[str, set[str]]
"""Names read only as a module's globals, by the module's path."""


def add_globals(into: GlobalsRead, reads: Iterable[tuple[str, Iterable[str]]]) -> GlobalsRead:
    """``into`` with the names of ``reads`` (path, names read only as its globals) added."""
    for path, read in reads:
        into.setdefault(path, set()).update(read)
    return into


@dataclass
class ImportFootprints:
    """Footprints as the tracer hands them over (innermost import first)."""

    units: dict[int, frozenset[int]] = field(default_factory=dict)
    # By module: the names its footprint read, and whether it looked names up by string.
    reads: dict[int, tuple[frozenset[str], bool]] = field(default_factory=dict)
    # By module: the names its footprint read only as globals of a module, by that module's
    # path (only a binding there can change what they find: ``rts.reads``). Counted as read
    # anywhere, ``import sys`` added to a test file selected every test of it.
    globals_read: dict[int, GlobalsRead] = field(default_factory=dict)
    # By module: the files whose class statements ran with a class hook at its import.
    hooks: dict[int, frozenset[str]] = field(default_factory=dict)
    unhooked: set[int] = field(default_factory=set)  # code ids of hook-free footprints
    _unions: dict[frozenset[int], frozenset[int]] = field(default_factory=dict)

    def add(
        self,
        module: int,
        ids: set[int],
        names: frozenset[str],
        dynamic: bool,
        globals_read: GlobalsRead,
    ) -> None:
        """What ran at ``module``'s import: the units ``ids``, the ``names`` it read
        anywhere and those it read only as a module's globals (``globals_read``)."""
        known, was_dynamic = self.reads.get(module, (frozenset(), False))
        self.reads[module] = (known | names, was_dynamic or dynamic)
        if globals_read:
            add_globals(self.globals_read.setdefault(module, {}), globals_read.items())
        ids.discard(module)
        if ids:
            self.units[module] = self.units.get(module, frozenset()).union(ids)
            self._unions.clear()

    def add_hooked(
        self,
        module: int,
        codes: CodeSet,
        rel: Callable[[str], str | None],
        hands: Callable[[CodeType], bool],
    ) -> None:
        """A class hook ran in ``codes`` at ``module``'s import. The project files (``rel``
        of a filename) of the class bodies and module code among them that ran in no
        hook-free footprint and may have handed the hook a class (``hands``:
        ``rts.hook_exposure``; a class made by calling ``type`` runs hooks too) are read
        whole."""
        files = set(self.hooks.get(module, frozenset()))
        for key, ran in codes.items():
            if key not in self.unhooked and not ran.co_flags & CO_NEWLOCALS and hands(ran):
                path = rel(ran.co_filename)
                if path is not None:
                    files.add(path)
        self.hooks[module] = frozenset(files)

    def add_unhooked(self, codes: CodeSet) -> None:
        """``codes`` ran in an inner import no class hook is in."""
        self.unhooked.update(codes)

    def expand(self, ids: frozenset[int]) -> tuple[frozenset[int], set[str], bool]:
        """``ids`` with the footprints of the modules among them, the names those
        footprints read anywhere, and whether one looked names up by string."""
        if self.units:
            hits = ids.intersection(self.units)
            if hits:
                ids = ids.union(self._union(frozenset(hits)))
        names: set[str] = set()
        dynamic = False
        for module in ids.intersection(self.reads):
            read, looked_up = self.reads[module]
            names |= read
            dynamic = dynamic or looked_up
        return ids, names, dynamic

    def add_globals_read(self, ids: Set[int], into: GlobalsRead) -> None:
        """Add to ``into`` the names the footprints of the modules among ``ids`` (as
        ``expand`` returned them) read only as a module's globals, by path."""
        for module in ids & self.globals_read.keys():
            add_globals(into, self.globals_read[module].items())

    def read_whole(self, ids: Set[int]) -> set[str]:
        """The files a test depending on ``ids`` reads whole (where a class hook ran)."""
        return set().union(*map(self.hooks.__getitem__, ids & self.hooks.keys()))

    def _union(self, modules: frozenset[int]) -> frozenset[int]:
        """Memoized: the tests of a file mostly depend on the same modules."""
        union = self._unions.get(modules)
        if union is None:
            union = self._unions[modules] = frozenset().union(*map(self.units.__getitem__, modules))
        return union
