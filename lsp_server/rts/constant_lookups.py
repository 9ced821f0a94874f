"""Lookups whose names are constants, read from the code: ``getattr(token, "parent")``
reads ``parent`` whenever it runs, so a tracer that sees only *that* the code ran
(``rts.instrumented_tracer``) knows every name it can read without watching it run."""

from __future__ import annotations

from types import CodeType

from lsp_server.rts.lookup_sites import lookup_sites
from lsp_server.rts.lookups import DYNAMIC_NAMES

BY_CONSTANT = frozenset(["getattr", "hasattr", "setattr", "delattr"])
"""Lookup functions whose second argument is the one name they read."""


def constant_names(code: CodeType) -> set[str] | None:
    """The names ``code``'s lookup call sites read when each is a call of a function of
    ``BY_CONSTANT`` naming a constant string (a superset of what one run reads: a site
    not reached reads nothing); None when a site names a variable, or any other lookup
    is spelled (``rts.runtime_lookups`` must see it run)."""
    spelled = DYNAMIC_NAMES.intersection(code.co_names)
    if not spelled:
        return set()
    if not spelled <= BY_CONSTANT:
        return None
    sites = lookup_sites(code)
    if sites is None:
        return None
    names: set[str] = set()
    for arguments in sites.values():
        source = arguments[1] if len(arguments) >= 2 else None
        if source is None or source[0] != "const" or type(source[1]) is not str:
            return None
        names.add(source[1])
    return names
