"""Semantic checks of a refactoring's result, per kind, before any edit is returned.

``CHECKS`` maps an action name (as in ``engine.OPERATIONS``) to a check that gets the
request's context and rope's planned changes and returns them, mended where our layer can
mend them, or raises ``RefactoringError`` naming the reason and the place. The engine calls
``check`` once per task, right after the operation; a kind without a check passes as is.
Moves are checked inside ``refactor.move`` (``move_checks``): they need the simulated
project, which the move computes anyway.
"""

from __future__ import annotations

from collections.abc import Callable

from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.semantics.edit import parse_failure_message
from lsp_server.refactor.semantics.extract_method import check_extract_method
from lsp_server.refactor.semantics.extract_variable import check_extract_variable
from lsp_server.refactor.semantics.inline_function import (
    check_inline_function,
    check_inline_parameter,
)
from lsp_server.refactor.semantics.inline_variable import check_inline

__all__ = ["CHECKS", "Check", "check", "parse_failure_message"]

Check = Callable[[Context, Planned], Planned]

_INLINE: dict[str, Check] = {
    "inline-method": check_inline_function,
    "inline-parameter": check_inline_parameter,
}
"""rope decides what an inline is (variable, function, parameter) from the cursor."""

CHECKS: dict[str, Check] = {
    "extract-method": check_extract_method,
    "extract-variable": check_extract_variable,
    "inline": lambda ctx, planned: _INLINE.get(planned.kind, check_inline)(ctx, planned),
}


def check(ctx: Context, planned: Planned) -> Planned:
    """``planned`` after the semantic check of its kind (mended), or RefactoringError."""
    kind_check = CHECKS.get(ctx.request.action)
    return planned if kind_check is None else kind_check(ctx, planned)
