"""``@overload`` stubs (``typing.overload``): a stub binds nothing a reader of the name
finds (the last ``def`` of the name replaces it), so its text and what it reads belong with
the body unit, which ``typing.get_overloads`` shows (``lookups.BODY_READS``), not with the
header every reader of the name depends on (``rts.units``)."""

from __future__ import annotations

from lsp_server.rts.spans import UnitSpan


def overload_stubs(spans: list[UnitSpan], lines: list[str]) -> set[UnitSpan]:
    """The ``@overload`` stubs that a later ``def`` of the same name in the same scope
    replaces: the name is bound to that one, so the stubs change no header (what a reader
    of the name finds) but only what ``typing.get_overloads`` returns. A stub has the one
    decorator, spelled ``overload`` (``typing.overload``, ``t.overload``), on its line."""
    last: dict[tuple[str, str | None], UnitSpan] = {}
    for span in spans:
        last[(span.name, span.parent)] = span
    found: set[UnitSpan] = set()
    for span in spans:
        decorator = lines[span.first_line - 1].strip() if span.first_line <= len(lines) else ""
        one = span.def_line == span.first_line + 1
        spelled = decorator in ("@overload", "@typing.overload", "@t.overload")
        if one and spelled and last[(span.name, span.parent)] is not span:
            found.add(span)
    return found
