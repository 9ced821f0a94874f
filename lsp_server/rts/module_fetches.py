"""A module fetched by its name when it is imported already: no import runs, so no module
code runs and no file is read that would make the fetched module a dependency of the
test, yet the test reads the names of the module object it got (sel28c:
``importlib.import_module("pkg.old").PATTERN``, ``PATTERN`` changed, the test was not
selected and failed).

Code whose lookups by string are recorded as they run (``rts.runtime_lookups``) depends on
the modules it fetched, by their files (``module_files``). Code read conservatively (the
name computed out of sight; or the fetch spelled in a shape no call site tells:
``__import__("m", fromlist=["x"])`` by keyword; ``importlib.import_module("m")`` before
3.12; pytest's rewritten ``assert`` handing it on, see ``rts.assert_callees``) could have
fetched any module, possibly one only another test imported: it reads the session's
listing (``reads.SESSION_LISTING``), as a lookup in ``sys.modules`` by a computed key
does. So does any code calling ``importorskip``, as the library code that fetches by
string (pytest's ``importorskip``) is not traced."""

from __future__ import annotations

import dis
from types import CodeType

from lsp_server.rts.constant_fetches import FETCHES_BY_NAME, LOADS, constant_fetches
from lsp_server.rts.reads import EVERY_NAME, SESSION_LISTING

LIBRARY_FETCHES = frozenset(["importorskip"])
"""Library functions (untraced) that return a module by its name, imported or not."""


def with_fetched_modules(code: CodeType, names: frozenset[str], dynamic: bool) -> frozenset[str]:
    """``names`` read by ``code`` (``dynamic``: read conservatively), with the session
    listing when ``code`` may have fetched any module by name (see the module docstring;
    one spelled by a constant name is a module unit of the code: ``rts.constant_fetches``)."""
    fetches = loads_any(code, LIBRARY_FETCHES)
    by_name = (dynamic or EVERY_NAME in names) and loads_any(code, FETCHES_BY_NAME)
    fetches = fetches or (by_name and constant_fetches(code) is None)
    return names | {SESSION_LISTING} if fetches else names


def loads_any(code: CodeType, wanted: frozenset[str]) -> bool:
    """Whether ``code`` loads one of the names ``wanted`` (a global, an attribute or a
    local: ``rts.constant_fetches.LOADS``): only binding it (``from importlib import
    import_module``) fetches nothing."""
    if wanted.isdisjoint(code.co_names):
        return False
    return any(i.opname in LOADS and i.argval in wanted for i in dis.get_instructions(code))
