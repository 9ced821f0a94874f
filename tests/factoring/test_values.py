"""Transcript values: an ``OrderedDict`` T hands to E (requests' adapters) and a
``timedelta`` (a response's ``elapsed``) are plain data."""

from __future__ import annotations

import datetime
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


def test_a_timedelta_round_trips() -> None:
    given = datetime.timedelta(days=1, seconds=2, microseconds=3)
    assert values.is_plain(given)
    assert values.decode(values.encode(given, _refuse), _refuse) == given
