"""A last check of rope's output before anyone sees it.

rope occasionally produces code that does not compile or refers to names that no longer
exist (e.g. inlining nested calls of the inlined function). A refactoring must preserve
behaviour, so a result whose files gain a syntax error or a new undefined name is refused
with a clear error instead of being offered.
"""

from __future__ import annotations

import ast
import functools

from pyflakes import checker, messages

from lsp_server.refactor.model import FileEdit, RefactoringError


@functools.lru_cache(maxsize=256)
def _undefined(text: str, filename: str) -> frozenset[str] | None:
    """Undefined names pyflakes finds (cached: the text before a task is usually known)."""
    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError):
        return None
    found = checker.Checker(tree, filename)
    return frozenset(
        str(m.message_args[0])
        for m in found.messages
        if isinstance(m, (messages.UndefinedName, messages.UndefinedLocal))
    )


def check_edit(edit: FileEdit, rel: str) -> None:
    """Raise ``RefactoringError`` if ``edit`` breaks a Python file that was fine before."""
    if not rel.endswith((".py", ".pyw")):
        return
    before = _undefined(edit.old_text, rel)
    if before is None:
        return  # it did not parse before: nothing to compare against
    after = _undefined(edit.new_text, rel)
    if after is None:
        raise RefactoringError(f"the refactoring would leave {rel} with a syntax error")
    new = sorted(after - before)
    if new:
        raise RefactoringError(
            f"the refactoring would leave undefined names in {rel}: {', '.join(new)}"
        )
