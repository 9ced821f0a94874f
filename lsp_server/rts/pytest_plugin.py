"""The pytest plugin (entry point ``pytest11``): inert unless ``--reks`` is given."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reks", "reks test selection")
    group.addoption(
        "--reks", action="store_true", help="run affected tests and record dependencies"
    )
