"""Code-action offers from a module's outline: ``offers_at`` without parsing the module."""

from __future__ import annotations

import dataclasses

from lsp_server.refactor.actions import OFFER_FAMILIES, WHOLE_MODULE_FAMILIES, Offer
from lsp_server.refactor.cursor import Cursor
from lsp_server.refactor.destinations import ProjectModule
from lsp_server.refactor.outline import (
    Chunk,
    ModuleFacts,
    Outline,
    chunk_around,
    guess_chunk,
    merged_facts,
)


def offers_in_outline(
    text: str,
    outline: Outline,
    offset: int,
    end: int | None = None,
    project_module: ProjectModule | None = None,
    outlined: str | None = None,
) -> list[Offer] | None:
    """``offers_at`` for a module whose ``outline`` is known: only the top-level statements
    around the cursor are parsed (see ``refactor.outline``).

    ``outlined`` is the text the outline was made from when it is an earlier text of the
    document: the statements around the cursor are then taken from it if ``text`` holds
    them unchanged, at the same place or moved by an edit before them (their offers are
    those of the current text; the module-wide facts may be out of date, which is why a
    chosen offer is checked again against an outline of the current text). None when
    they are not unchanged, or do not parse.
    """
    source = text if outlined is None else outlined
    for delta in dict.fromkeys((0, len(text) - len(source))):
        at, stop = offset - delta, None if end is None else end - delta
        if not 0 <= at <= len(source):
            continue
        chunk = chunk_around(source, outline, at, stop)
        if chunk is None:
            continue
        part = chunk.part(source)
        moved = chunk.shifted(delta)
        if moved.part(text) != part:
            continue
        return _chunk_offers(part, moved, offset, end, outline.facts, project_module)
    return None


def offers_without_outline(
    text: str,
    offset: int,
    end: int | None = None,
    project_module: ProjectModule | None = None,
    known: ModuleFacts | None = None,
) -> list[Offer]:
    """The offers at the cursor when no outline covers it (none made yet, or the text
    changed there since): from the statements around it as the lines' indentation tells
    (``outline.guess_chunk``), with the module-wide facts of ``known`` (an earlier
    text's) and of those statements. Possibly fewer than with an outline, never a wait
    for the module to be parsed; a chosen offer is checked against an outline anyway.
    None found: no offers."""
    chunk = guess_chunk(text, offset, end)
    if chunk is None:
        return []
    facts = merged_facts(known or ModuleFacts(), chunk.tree)
    return _chunk_offers(chunk.part(text), chunk, offset, end, facts, project_module)


def _chunk_offers(
    part: str,
    chunk: Chunk,
    offset: int,
    end: int | None,
    facts: ModuleFacts,
    project_module: ProjectModule | None,
) -> list[Offer]:
    """The offers at ``offset`` (to ``end``) of the current text, whose ``chunk`` (at
    its place in the current text) is ``part``."""
    local_end = None if end is None else chunk.local(end)
    cursor = Cursor(part, chunk.tree, chunk.local(offset), local_end, facts)
    cursor.project_module = project_module
    cursor.class_fields = chunk.fields
    return [
        offer
        if family in WHOLE_MODULE_FAMILIES  # at the module's start, not the cursor's
        else dataclasses.replace(
            offer,
            offset=chunk.outer(offer.offset),
            end=None if offer.end is None else chunk.outer(offer.end),
        )
        for family in OFFER_FAMILIES
        for offer in family(cursor)
    ]
