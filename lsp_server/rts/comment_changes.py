"""Changes to the text of comments alone, and the tests that may see one anyway.

A comment edit that moves no line changes a file's ``LAYOUT`` and the ``LINES`` unit of the
function it sits in, never their twins without comments (``PLACES``, ``PLACED``:
``rts.layout_unit``). No object of the session differs then: code objects, classes and
modules are the same, their line numbers too. Only reading source text shows it
(``lookups.SOURCE_TEXT_READS``). A test listing the session's state
(``rts.session_listings``) reaches modules it depends on no unit of, so it cannot rely on
its own units for that: it runs on such a change only when it read source text by one of
those names (recorded as ``NAMES`` units: read anywhere, or as a module's global).
"""

from __future__ import annotations

from collections.abc import Iterable

from lsp_server.project.files import is_python
from lsp_server.rts.code_read_targets import TOLD
from lsp_server.rts.file_units import Unit
from lsp_server.rts.lookups import SOURCE_TEXT_READS
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import LAYOUT, LINES, NAMES, PLACED, PLACES, read_parts


def places_twin(unit_name: str) -> str | None:
    """The name of the unit without comments' text of a ``LAYOUT`` or ``LINES`` unit; None
    for any other unit."""
    if unit_name == LAYOUT:
        return PLACES
    if unit_name.endswith(LINES):
        return unit_name.removesuffix(LINES) + PLACED
    return None


def comments_only(store: DependencyStore, changed: Iterable[Unit]) -> bool:
    """Whether every change among ``changed`` (names read aside) is to comments' text: a
    ``LAYOUT`` or ``LINES`` unit whose twin the store recorded and did not change (a store
    written before the twins existed cannot tell: no)."""
    # A Python file's ``FILE`` unit (its bytes) changes with any edit: the layout units
    # tell which kind of edit it is.
    units = [u for u in changed if u.path != NAMES and not (u.is_file and is_python(u.path))]
    recorded: dict[str, dict[str, str | None]] = {}
    for unit in units:
        twin = places_twin(unit.name)
        if twin is None or Unit(unit.path, twin) in units:
            return False
        if unit.path not in recorded:
            recorded[unit.path] = store.units_of(unit.path)
        if recorded[unit.path].get(twin) is None:
            return False
    return bool(units)


def source_text_readers(store: DependencyStore) -> set[str]:
    """The tests whose code read source text by name (told or not, anywhere or as a
    module's global)."""
    names = store.unit_checksums().get(NAMES, {})
    readers: set[str] = set()
    for name in names:
        read = read_parts(name)[0].removeprefix(TOLD)
        if read in SOURCE_TEXT_READS:
            readers.update(store.tests_depending_on(Unit(NAMES, name)))
    return readers
