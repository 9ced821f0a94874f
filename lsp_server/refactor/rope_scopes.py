"""rope's scope regions, computed for the statements that hold a scope only.

To tell which scope an offset is in, rope gives every function, class and comprehension
node its region (start and end offsets) by running its token matcher (``patch_ast``) over
the whole module, every statement of it. That is rope's slowest step on a long module:
about 55 s of a rename in a 50,000-line module on a loaded machine, although such a module
is mostly statements without any scope. ``install`` makes rope patch only the top-level
statements that contain a scope, each matched from the start of its first line: the
regions are the same (``tests/refactor/test_rope_scopes.py`` compares them on the standard
library), the other nodes get none, as they would not be asked for one.
"""

from __future__ import annotations

import bisect
from typing import Any

from rope.base import pyscopes, utils
from rope.refactor import patchedast

from lsp_server.project.text import line_starts

ORIGINAL = pyscopes.GlobalScope._calculate_scope_regions
"""rope's own, whole-module version (the tests compare the two)."""
_installed = False


def _first_line(statement: Any) -> int:
    decorators = getattr(statement, "decorator_list", None) or []
    return min([statement.lineno, *(d.lineno for d in decorators)])


def _scope_nodes(scope: Any) -> list[Any]:
    nodes = []
    for inner in scope.get_scopes():
        node = inner.pyobject.get_ast()
        if hasattr(node, "lineno"):
            nodes.append(node)
    return nodes


@utils.saveit
def _calculate_scope_regions(self: Any) -> None:
    """Replacement of ``GlobalScope._calculate_scope_regions`` (see the module docstring)."""
    module = self.pyobject.get_ast()
    source = self._get_source()
    body = module.body
    firsts = [_first_line(statement) for statement in body]
    holding: set[int] = set()
    for node in _scope_nodes(self):
        index = bisect.bisect_right(firsts, node.lineno) - 1
        if index >= 0:
            holding.add(index)
    if not holding:
        return
    starts = line_starts(source)
    walker = patchedast._PatchingASTWalker(source, children=False)
    for index in sorted(holding):
        statement = body[index]
        if hasattr(statement, "region"):
            continue
        walker.source.offset = starts[firsts[index] - 1]
        walker(statement)


def install() -> None:
    """Replace rope's whole-module scope regions by the statement-wise ones (once)."""
    global _installed
    if not _installed:
        pyscopes.GlobalScope._calculate_scope_regions = _calculate_scope_regions
        _installed = True
