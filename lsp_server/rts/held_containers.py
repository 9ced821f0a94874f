"""Module-level objects of the project's classes whose attributes hold a dict, set or list.

A cache held by an instance (jinja's ``_lexer_cache = LRUCache(50)`` keeps each lexer in
its ``_mapping`` dict, keyed by the environment's settings) carries a value from the test
that computed it to every later test that only reads it, as a module-level dict does: in a
whole-suite recording ``test_list_add`` ran no ``Lexer.__init__`` (an earlier test had
built the lexer it got), and a change of the lexer's rules failed it unselected.
``rts.filled_containers`` watches these containers as it watches a module's own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

from lsp_server.rts.container_slots import KINDS
from lsp_server.rts.plain_values import is_kind, own_namespace


def container_holders(module: ModuleType, is_project_file: Callable[[str], bool]) -> list[object]:
    """The objects bound at the top level of ``module`` that are instances of a class of a
    project file and hold a container in their ``__dict__`` (read without running any of
    their code: no ``__getattr__``)."""
    found = []
    for value in list(vars(module).values()):
        if is_kind(value, (type, ModuleType)):
            continue
        defining = sys.modules.get(getattr(type(value), "__module__", None) or "")
        filename = getattr(defining, "__file__", None)
        if not isinstance(filename, str) or not is_project_file(filename):
            continue
        namespace = own_namespace(value)  # None: slots only
        if isinstance(namespace, dict) and any(is_kind(v, KINDS) for v in namespace.values()):
            found.append(value)
    return found
