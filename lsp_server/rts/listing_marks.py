"""Which code looked up a listing of the session's state while a test ran.

The names a code object looks up by a variable are recorded over the session
(``rts.runtime_lookups``: a superset of any one test's, cheap to keep). A name among them
that lists the session's state (``lookups.SESSION_LISTINGS``: ``__subclasses__``) made the
code a listing reader in every later test that ran it, though a test sees the listing only
where the lookup ran while it was active: jinja's ``Environment.getattr`` looked up
``__subclasses__`` for one sandbox test, and every later test rendering a template was
selected by any change anywhere. So each such lookup leaves a marker in the set of code
that ran then (one code object per code, as ``getattr_branches.AskedNames`` does); the
attribution reads the listing off the markers of the test's window. Code that ran at an
import or a collection keeps the session-long reading (its footprint serves every later
test that imports the module)."""

from __future__ import annotations

from collections.abc import Iterable
from types import CodeType

from lsp_server.rts.identity import identity
from lsp_server.rts.lookups import SESSION_LISTINGS
from lsp_server.rts.module_presence import untold_presence_ask
from lsp_server.rts.reads import SESSION_LISTING, code_reads, with_listing


class ListingMarks:
    """One marker per code object that looked up a listing name, kept (its id stays a key)."""

    def __init__(self) -> None:
        self._markers: dict[int, CodeType] = {}  # by identity(code)
        self._originals: dict[int, int] = {}  # identity(marker) -> identity(code)

    def marker(self, code: CodeType) -> CodeType:
        """The marker standing for ``code``'s lookup of a listing name."""
        found = self._markers.get(identity(code))
        if found is None:
            found = self._markers[identity(code)] = code.replace(co_name="<listed>")
            self._originals[identity(found)] = identity(code)
        return found

    def listed(self, codes: Iterable[int]) -> frozenset[int]:
        """The code objects (by identity) whose markers are among ``codes`` (identities)."""
        originals = self._originals  # in C: a test runs hundreds of code objects
        return frozenset(map(originals.__getitem__, originals.keys() & codes))


def window_listing(names: set[str], listed: bool | None, told: bool) -> set[str]:
    """The names a code object looked up by a variable (``names``: over the session), with
    ``SESSION_LISTING`` where it looked up a listing name in the window at hand
    (``listed``); where one of ``names`` is one (``reads.with_listing``) when ``listed`` is
    None (code run at an import or a collection) or the tracer did not mark (not ``told``)."""
    if listed is None or not told:
        return with_listing(names)
    return names | {SESSION_LISTING} if listed else names


_NOTHING: tuple[frozenset[str], bool] = (frozenset(), False)
_LISTING: tuple[frozenset[str], bool] = (frozenset([SESSION_LISTING]), False)


def statement_listing(
    code: CodeType, counted: bool, told: bool, listed: bool = False
) -> tuple[frozenset[str], bool]:
    """What the attribution counts as read by ``code``, a module's top level or a class
    body (``counted``: a project file's), beyond the units it runs in: a listing of the
    session's state, when it spells one (``reads.code_reads``). What else such code reads
    is in its module's or class's units (their bindings' references); what a listing
    sees at import is not: the loaded modules or subclasses then are whatever the session
    imported before, which an import added, moved or removed anywhere changes (another
    module's new ``from plugin import MARK`` runs ``plugin`` before a top-level
    ``LOADED = sorted(sys.modules)``). So a test that ran such code lists the session's
    state (``rts.session_listings``). So does a module's top level asking ``sys.modules``
    whether a module is there, unless the ask is told as it runs (``told``: 3.12's events,
    ``rts.module_presence``), and one that listed a project package's namespace as it ran
    (``listed``: ``dir(pkg)`` sees the submodules imported before,
    ``namespace_listings.PACKAGE_LISTING``)."""
    if not counted:
        return _NOTHING
    if listed:
        return _LISTING
    if not SESSION_LISTINGS.isdisjoint(code.co_names) and SESSION_LISTING in code_reads(code)[0]:
        return _LISTING
    return _LISTING if untold_presence_ask(code, told) else _NOTHING
