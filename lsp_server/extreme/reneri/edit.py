"""Inserting a suggested assertion into a test file's text."""

from __future__ import annotations

import ast

from .model import Assertion


class EditError(ValueError):
    """The assertion cannot be inserted: the file changed since the diagnosis."""


def insert_assertion(source: str, assertion: Assertion) -> str:
    """``source`` with ``assertion.text`` as a new line after ``assertion.line``.

    The result must still parse; otherwise (the file was edited since, the line moved)
    ``EditError`` is raised and nothing is changed.
    """
    lines = source.splitlines(keepends=True)
    if not 1 <= assertion.line <= len(lines):
        raise EditError(f"line {assertion.line} is outside the file ({len(lines)} lines)")
    newline = "\r\n" if lines[0].endswith("\r\n") else "\n"
    if not lines[assertion.line - 1].endswith(("\n", "\r")):
        lines[assertion.line - 1] += newline
    lines.insert(assertion.line, assertion.text.rstrip() + newline)
    result = "".join(lines)
    try:
        ast.parse(result)
    except SyntaxError as exc:
        raise EditError(f"the assertion does not fit after line {assertion.line}: {exc}") from exc
    return result
