"""Units that tell what a module's ``__all__`` lists, as the store keeps them: comparing
the recorded ones with the current file's tells which names' listing changed
(``rts.star_listings``)."""

from __future__ import annotations

LISTING = "__all__"
KNOWN_LISTING = "<listing>"
"""A unit of a module whose ``__all__`` lists names known at analysis (``listed``)."""
LISTED = "__all__."
"""Prefix of a unit per name ``__all__`` lists (``__all__.x``): no test depends on these
units; the names that come and go between the recorded and the current file are the
names whose listing changed."""


def listing_units(listed: frozenset[str] | None) -> dict[str, str]:
    """The checksums of the units telling what ``__all__`` lists (none when unknown)."""
    if listed is None:
        return {}
    return {KNOWN_LISTING: "known", **{LISTED + name: "listed" for name in listed}}
