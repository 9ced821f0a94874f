"""Lookups by a name held in a variable, recorded at run time.

``getattr(module, name)`` with ``name`` a variable can read any binding, so its syntax alone
makes a test that ran it depend on every unit of its modules (``rts.lookups``). Modules that
fill a registry at import by looking names up from a constant table (toolz's
``_signatures.create_signature_registry``: ``hasattr``/``getattr`` over a literal table,
``import_module`` over the table's module names) made every importer that conservative.

Here the call sites of the lookup functions (``LOOKUP_FUNCTIONS``) whose name argument is
pushed by one plain load (a local, a cell, a global, a constant) are found in the bytecode
(``lookup_sites``), and when such a call runs the tracer reads the name the argument holds
(``RuntimeLookups.on_call``): the code depends on the names it really read, found or not
(``hasattr`` finding nothing reads the name as well: a new binding of it selects the test).
The names that decide which names are read (the table, the code computing them) are
dependencies as for any code that ran, so recording the names read loses nothing.

A call of an attribute-lookup method spelled as an attribute (``super().__getattr__(self,
name)``, ``object.__getattribute__(self, name)``: sqlparse's token kinds, tinydb's queries)
is such a call site too where the tracer sees it run (``methods_seen``: 3.12's CALL event,
the instrumented tracer's ``rts.method_sites``): every argument a plain load, the strings
they hold the names read, whatever method it called.

``vars`` and ``dir`` read what they are given whole (``rts.namespace_listings``). A code
object keeps the conservative reading when any other lookup by string is spelled in it
(``globals``, ``__dict__``...), when a lookup function is loaded for anything
but a call, when a call's name argument is computed (``names[i]``, ``prefix + name``; but
3.12's CALL event hands over ``import_module``'s, its first: tomli's tests import
``f"{tomllib.__name__}._types"``) or its value is unknown at the call (a relative
``import_module``), and once it looked up more than ``MAX_CALLS`` names in a test.
"""

from __future__ import annotations

import builtins
import importlib
import operator
import sys
from collections.abc import Callable, Iterable, Mapping
from sys import _getframe
from types import CodeType, FrameType, FunctionType, MethodType

from lsp_server.rts import builtins_lookups, member_lookups
from lsp_server.rts.code_read_targets import SOURCE_FUNCTIONS, CodeReads, source_sites
from lsp_server.rts.identity import identity
from lsp_server.rts.import_calls import module_files, record_import
from lsp_server.rts.line_stores import loaded_marks
from lsp_server.rts.listing_marks import ListingMarks
from lsp_server.rts.lookup_receivers import ATTRIBUTE_FUNCTIONS, record_receiver
from lsp_server.rts.lookup_sites import (
    LOOKUP_FUNCTIONS,
    METHOD_CALL,
    Sites,
    lookup_sites,
    shadowed,
)
from lsp_server.rts.lookups import SESSION_LISTINGS
from lsp_server.rts.named_reads import named_modules
from lsp_server.rts.namespace_listings import PACKAGE_LISTING, record_listing
from lsp_server.rts.reads import EVERY_NAME
from lsp_server.rts.site_values import (
    Source,
    parts_of,
    record_handed_names,
    record_method_call,
    value_at,
)

MAX_CALLS = 20_000
"""Lookups one code object may record in a test (pyflakes's visitor passed it in a session)
before it is read conservatively (a hot loop of ``getattr`` calls back on every turn)."""


class RuntimeLookups:
    """The names each project code object looked up at its lookup call sites, over the
    session (a superset of any one test's: sound, and cheap to keep). ``names`` holds
    ``EVERY_NAME`` for code that looked up a name it could not tell; ``modules`` the
    modules ``import_module`` imported by name."""

    def __init__(self, is_project_file: Callable[[str], bool]) -> None:
        self._is_project_file = is_project_file
        self.listing_seen: Callable[[], dict[int, CodeType]] | None = None
        """The set of code running now, of a tracer that sees every lookup call run, which a
        lookup of a listing name marks (``rts.listing_marks``); None: listings are read
        over the session (the markers' tracer tells a constant site's names otherwise)."""
        self.listing_marks = ListingMarks()
        self.methods_seen: Callable[[CodeType], bool] = lambda _: sys.version_info >= (3, 12)
        """Whether the tracer sees the lookup-method calls of a code object run (else any
        spelled makes its sites unknown); set before any site is asked for."""
        self._files: dict[str, bool] = {}
        self._sites: dict[int, Sites | None] = {}
        self._named: dict[int, frozenset[str]] = {}  # by ``sys.modules`` lookups: ``read``
        self._codes: dict[int, CodeType] = {}  # kept alive: an id stays a valid key
        self._calls: dict[int, int] = {}
        # By id: (the sources of a site's name arguments, kept alive; whether all constant).
        self._constant_arguments: dict[int, tuple[object, bool]] = {}
        self.names: dict[int, set[str]] = {}
        self.modules: dict[int, set[str]] = {}
        self.submodules: dict[int, set[str]] = {}  # what a fromlist may have imported
        self.code_reads = CodeReads(self.is_project_code, self._is_project_filename)
        """What code each project code object read, told (``rts.code_read_targets``): the
        recorder routes ``__code__`` audit events there, ``call_event`` the source reads."""
        self.sources_seen = False
        """Whether the calls of ``inspect.getsource`` at its call sites are seen (3.12's
        CALL event, ``call_event``), and the first argument of every lookup (``arg0``)."""
        self._source_sites: dict[int, frozenset[int] | None] = {}
        self.version = 0
        """Grows whenever some code looks up a name (or imports a module) it had not: an
        answer worked out from what was read before is then out of date."""

    @property
    def tells_listings(self) -> bool:
        """Whether a lookup of a listing name marks the code running then."""
        return self.listing_seen is not None

    def sites(self, code: CodeType) -> Sites | None:
        """``lookup_sites(code)``, memoized by identity (None when it has lookup-method
        sites the tracer would not see run)."""
        key = identity(code)
        if key not in self._sites:
            self._codes[key] = code
            found = lookup_sites(code)
            self._named[key] = named_modules(code) if found is not None else frozenset()
            if found and any(s[:1] == (METHOD_CALL,) for s in found.values()):
                found = found if self.methods_seen(code) else None
            self._sites[key] = found
        return self._sites[key]

    def restart(self) -> None:
        """A new test (or window) starts: ``MAX_CALLS`` counts afresh."""
        self._calls.clear()

    def is_project_code(self, code: CodeType) -> bool:
        return self._is_project_filename(code.co_filename)

    def _is_project_filename(self, filename: str) -> bool:
        wanted = self._files.get(filename)
        if wanted is None:
            wanted = self._files[filename] = self._is_project_file(filename)
        return wanted

    def on_call(
        self, frame: FrameType, code: CodeType, offset: int, function: object, arg0: object = None
    ) -> bool:
        """Record the name ``function`` (a lookup function) is about to look up, called at
        ``offset`` of ``frame``'s code ``code`` (with ``arg0``, on 3.12+); False when the site
        need not call back again in this test (given up: the code reads conservatively from
        now on; or it names a constant, recorded now). ``code`` is passed, not read: each
        ``f_code`` raises an audit event (reks's hook is installed)."""
        key = identity(code)
        names = self.names.setdefault(key, set())
        before = len(names) + len(self.modules.get(key, ()))
        if EVERY_NAME in names or self.listing_seen is None:
            going_on = self._record(frame, code, offset, function, arg0)
        elif SESSION_LISTINGS.isdisjoint(names):
            # No listing name looked up before (nearly every call): one there now is this
            # call's, and no set apart is needed (``_record`` only adds to ``names``, and
            # reads of it ask for ``EVERY_NAME`` alone, not there before either way).
            going_on = self._record(frame, code, offset, function, arg0)
            if not SESSION_LISTINGS.isdisjoint(names):
                self._mark_listing(code)
        else:  # what this call looks up apart: a listing name marks the running code
            fresh: set[str] = set()
            self.names[key] = fresh
            try:
                going_on = self._record(frame, code, offset, function, arg0)
            finally:
                self.names[key] = names
                names |= fresh
            if not SESSION_LISTINGS.isdisjoint(fresh):
                self._mark_listing(code)
        if len(names) + len(self.modules.get(key, ())) != before:
            self.version += 1
        return going_on

    def _mark_listing(self, code: CodeType) -> None:
        """``code`` looked up a listing name: its marker joins the code running now."""
        marker = self.listing_marks.marker(code)
        seen = self.listing_seen
        if seen is not None:
            seen()[identity(marker)] = marker

    def _record(
        self, frame: FrameType, code: CodeType, offset: int, function: object, arg0: object
    ) -> bool:
        key = identity(code)
        names = self.names.setdefault(key, set())
        if EVERY_NAME in names or builtins_lookups.reads_builtins_only(function, arg0):
            return EVERY_NAME not in names  # given up; or a read of builtins, no name
        sites = self.sites(code)
        sources = None if sites is None else sites.get(offset)
        found = LOOKUP_FUNCTIONS.get(identity(function))
        method_call = sources is not None and bool(sources) and sources[0] == METHOD_CALL
        arguments = None if sources is None or found is None or method_call else sources[found[1]]
        # A site naming a constant reads the same name every time: once recorded it need
        # not call back again, and is no hot loop to give up on (sqlparse's
        # ``setattr(token, "parent", self)`` runs once per token).
        constant = function is not vars and bool(arguments) and self._all_constant(arguments or ())
        if not constant:
            count = self._calls[key] = self._calls.get(key, 0) + 1
            if count > MAX_CALLS:
                names.add(EVERY_NAME)  # a hot loop: given up
                return False
        if sources is not None and method_call:
            return record_method_call(frame, sources[1:], names)
        if sources == (member_lookups.MEMBERS_CALL,) and identity(function) in member_lookups.IDS:
            names.add(member_lookups.members_read(arg0))
            return EVERY_NAME not in names
        if found is None and self._is_project_function(function):
            return True  # a project method so named: it looks nothing up here (traced)
        if found is None and sources is not None:  # a library's callable so named (3.12+)
            return record_handed_names(frame, sources, names)
        if sources is None or arguments is None:
            # A call site not told apart, or no lookup function after all.
            names.add(EVERY_NAME)
            return False
        if function is vars or function is dir:
            return record_listing(function, frame, code, sources, names, self._is_project_file)
        if function is builtins.__import__:
            modules = self.modules.setdefault(key, set())
            submodules = self.submodules.setdefault(key, set())
            # Each argument is read: a constant name with a variable fromlist reads more.
            told = record_import(frame, sources, names, modules, submodules)
            return told and not all(s is not None and s[0] == "const" for s in sources)
        looked_up: list[str] = []
        first = arg0 if function is importlib.import_module else None  # its name, even computed
        for source in arguments:
            value = first if source is None or source[0] == "attribute" else value_at(frame, source)
            if not isinstance(value, str):  # computed, not found, or no string: not told
                return self._untold(frame, code, offset, function, arg0, names)
            looked_up.append(str.__str__(value))  # a str subclass's hash plays no part
        if function is not importlib.import_module:
            names.update(looked_up if function is not operator.attrgetter else parts_of(looked_up))
            return not constant
        if any(name.startswith(".") for name in looked_up):  # relative to a package argument
            names.add(EVERY_NAME)
            return False
        self.modules.setdefault(key, set()).update(looked_up)
        names.update(parts_of(looked_up))
        return not constant

    def _untold(
        self,
        frame: FrameType,
        code: CodeType,
        offset: int,
        function: object,
        arg0: object,
        names: set[str],
    ) -> bool:
        """A name ``function`` looks up that the site cannot tell: every name, but where
        what an attribute lookup looked in tells less (``rts.lookup_receivers``)."""
        if function in ATTRIBUTE_FUNCTIONS:
            return record_receiver(frame, code, offset, function, arg0, self.sources_seen, names)
        names.add(EVERY_NAME)
        return False

    def _all_constant(self, arguments: tuple[Source | None, ...]) -> bool:
        """Whether every argument of a site is a constant: asked at each call of a lookup
        site, of the tuples ``sites`` keeps, so answered once per tuple (by ``identity``: a
        list display's sources are a list, unhashable; ``id`` raises an audit event)."""
        found = self._constant_arguments.get(identity(arguments))
        if found is None:
            constant = all(s is not None and s[0] == "const" for s in arguments)
            found = self._constant_arguments[identity(arguments)] = (arguments, constant)
        return found[1]

    def _is_project_function(self, function: object) -> bool:
        """A Python function (or a method of one) of a project module: a call site spelled
        like a lookup that calls it (jinja's ``environment.getattr(obj, name)``) looks
        nothing up itself. Told by its module's file: ``__code__`` would raise an audit
        event."""
        if type(function) is MethodType:
            function = function.__func__
        if type(function) is not FunctionType:
            return False
        filename = getattr(sys.modules.get(function.__module__), "__file__", None)
        return isinstance(filename, str) and self._is_project_file(filename)

    def call_event(self, disable: object) -> Callable[[CodeType, int, object, object], object]:
        """The ``sys.monitoring`` CALL callback (3.12+), enabled on code with lookup call
        sites or source-read sites only (``watches_calls``): its other calls return
        ``disable`` (the event names the callable, so a lookup function called where no
        site was found records every name). A source read site is never disabled: each
        call there hands over what it reads (``CodeReads.on_source_call``)."""
        getframe, sites_of, on_call = _getframe, self.sites, self.on_call
        source_sites, on_source_call = self.source_sites, self.code_reads.on_source_call
        self.sources_seen = True

        def on_call_event(code: CodeType, offset: int, function: object, arg0: object) -> object:
            if identity(function) in SOURCE_FUNCTIONS:
                on_source_call(code, arg0)
                return None
            if offset in (source_sites(code) or ()):
                return None  # another callable this time: maybe a source read next time
            sites = sites_of(code)
            if not sites or (offset not in sites and identity(function) not in LOOKUP_FUNCTIONS):
                return disable
            return None if on_call(getframe(1), code, offset, function, arg0) else disable

        return on_call_event

    def source_sites(self, code: CodeType) -> frozenset[int] | None:
        """``code_read_targets.source_sites(code)``, memoized by identity."""
        key = identity(code)
        if key not in self._source_sites:
            self._codes[key] = code
            self._source_sites[key] = source_sites(code)
        return self._source_sites[key]

    def watches_calls(self, code: CodeType) -> bool:
        """Whether the tracer watches the calls of ``code``: it has lookup call sites, or
        calls a source read."""
        return bool(self.sites(code)) or bool(self.source_sites(code))

    def on_profiled_call(self, caller: FrameType | None, function: object) -> None:
        """A profile hook saw ``function`` (a lookup function) called from ``caller``'s
        code (before 3.12: at its ``f_lasti``)."""
        if caller is None:
            return
        code = caller.f_code
        if self.is_project_code(code) and self.sites(code):
            self.on_call(caller, code, caller.f_lasti, function)

    def records(
        self, code: CodeType, bound: Mapping[str, Iterable[str]], origins: Mapping[str, str]
    ) -> bool:
        """Whether the lookups by string of ``code`` (whose module binds ``bound`` and
        imports ``origins``) are all ones whose names are recorded as they run."""
        return self.sites(code) is not None and not shadowed(code, bound, origins)

    def lists_package(self, code: CodeType) -> bool:
        """Whether ``code`` listed a project package's namespace as it ran (so far)."""
        return PACKAGE_LISTING in self.names.get(identity(code), ())

    def read(self, code: CodeType) -> tuple[set[str], set[str]]:
        """The names ``code`` looked up so far, and the files of the modules it imported
        or found in ``sys.modules`` by name (one not imported, or not found, reads as any
        name)."""
        key = identity(code)
        names = self.names.get(key, set()) - {PACKAGE_LISTING}
        if marks := loaded_marks(names):  # a line name looked up: ``rts.line_stores``
            names = names | marks
        found = self._named.get(key, frozenset())
        imported, submodules = self.modules.get(key, ()), self.submodules.get(key, ())
        files, missing = module_files(imported, found, submodules)
        return (names | {EVERY_NAME}) if missing else names, files
