"""A recorded test's dependencies on the literal parameter lists (``rts.parametrize_cases``)
it ran or read the function of: its own case when pytest made its id from that case's
values, the whole list (as the function's header had it) otherwise."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lsp_server.rts.file_units import Unit
from lsp_server.rts.interned_units import InternedUnits
from lsp_server.rts.parametrize_cases import WHOLE_LIST, case_digest, case_name, pytest_id
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.unit_names import header_name

Cases = tuple[tuple[str, ...], frozenset[str]]


class CaseUnits:
    """Adds to a recorded test's units the literal lists it depends on: its own case only
    when it is one (see ``rts.parametrize_cases``), else the whole list."""

    def __init__(
        self, states: FileStates, rel: Callable[[str], str | None], intern: Callable[[Unit], int]
    ) -> None:
        self._states = states
        self._rel = rel
        self._intern = intern
        # By file: (header id, function, cases) of each function with cases.
        self._by_path: dict[str, list[tuple[int, str, Cases]]] = {}

    def added(self, item: pytest.Item, units: InternedUnits) -> InternedUnits:
        """``units`` with the cases of each function with cases whose header is among them
        (it ran the function or read its name)."""
        extra: set[int] = set()
        for path in units.paths:
            for header, function, cases in self._functions(path):
                if header not in units.ids:
                    continue
                own = None
                if self._rel(str(item.path)) == path:
                    own = _own_case(item, function, cases)
                digests = [WHOLE_LIST if own is None else own]
                names = [case_name(function, d) for d in digests]
                extra.update(self._intern(Unit(path, n)) for n in names)
        if not extra:
            return units
        return InternedUnits(units.ids | extra, units.table, units.paths)

    def _functions(self, path: str) -> list[tuple[int, str, Cases]]:
        found = self._by_path.get(path)
        if found is None:
            file_units = self._states.units(path)
            cases = {} if file_units is None else file_units.cases
            found = self._by_path[path] = [
                (self._intern(Unit(path, header_name(f))), f, c) for f, c in cases.items()
            ]
        return found


def _own_case(item: pytest.Item, function: str, cases: Cases) -> str | None:
    """The digest of ``item``'s case of ``function``'s list, when pytest made its id from
    these values."""
    argnames, digests = cases
    callspec = getattr(item, "callspec", None)
    if callspec is None or getattr(item, "cls", None) is not None:
        return None
    if getattr(item, "originalname", None) != function:
        return None
    if set(callspec.params) != set(argnames):
        return None
    values = tuple(callspec.params[n] for n in argnames)
    digest = case_digest(values)
    if digest is None or digest not in digests:
        return None
    if callspec.id not in (pytest_id(values, escaped=True), pytest_id(values, escaped=False)):
        return None
    return digest
