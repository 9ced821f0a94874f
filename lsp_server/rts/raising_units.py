"""What may raise in a top-level binding, as a unit of its own instead of a part of the
module unit.

A ``def`` whose decorator, default or annotation may raise (``rts.import_raise``), or an
assignment whose value may, made the module unit hold a digest of those parts, and every
importer of the module depended on the names they read. Removing such a statement then
selected every importer, though the recorded import ran it without raising: running the
module without it cannot newly make the import fail (what it bound is the binding rules'
business, ``rts.binding_reads``). tenacity b8b4675 removed an unused ``@contextmanager``
helper of a test module and the imports only it read: every test importing the module ran.

So each such binding has a unit ``<raises>f`` (``unit_names.RAISES``), an import risk
(``unit_names.is_import_risk``): new or changed, it selects every importer; gone, nothing.
Its checksum holds the digest of the parts that may raise, for each name they read that
the module binds whether a binding comes before (moved below them, they raise), and the
checksums of the module's bindings of those names, closed over what those read: a
binding they read changed or removed changes it. A name the module binds otherwise too
(an import of a project module, a call's result) is no binding whose unit tells its
value: every importer depends on it as before (``FileUnits.residue_refs``).
"""

from __future__ import annotations

from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.tokens import digest


def add_raising_units(
    result: FileUnits,
    raising: dict[str, frozenset[str]],
    residue_bound: set[str],
) -> None:
    """Fold into each ``<raises>`` unit of ``raising`` (name -> what its statement reads)
    the checksums of the bindings it reads, transitively; the names read that no binding
    alone binds go into ``result.residue_refs``."""
    outside: set[str] = set()
    for unit, refs in raising.items():
        seen: dict[str, str | None] = {}
        todo = sorted(refs)
        while todo:
            name = todo.pop()
            units = result.bound.get(name)
            if name in residue_bound or not units:
                outside.add(name)  # a builtin, a missing name or one the residue binds
                continue
            for bound in units:
                if bound not in seen:
                    seen[bound] = result.checksums.get(bound)
                    todo.extend(sorted(result.refs.get(bound, frozenset())))
        parts = [f"<{name}={checksum}>" for name, checksum in sorted(seen.items())]
        result.checksums[unit] = digest([result.checksums[unit], *parts])
    result.residue_refs = result.residue_refs | outside
