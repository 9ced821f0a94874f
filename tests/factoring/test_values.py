"""Transcript values: an ``OrderedDict`` T hands to E (requests' adapters) is plain data."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from lsp_server.factoring import values


def _refuse(value: Any) -> Any:
    raise values.Unserialisable(type(value).__name__)


def test_an_ordered_dict_round_trips_with_its_type_and_order() -> None:
    given = OrderedDict([("b", 1), ("a", (2, 3))])
    assert values.is_plain(given)
    encoded = values.encode(given, _refuse)
    back = values.decode(encoded, _refuse)
    assert type(back) is OrderedDict
    assert list(back.items()) == [("b", 1), ("a", (2, 3))]
