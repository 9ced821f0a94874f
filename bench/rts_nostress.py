"""pytest plugin for the rts benchmarks: deselect tests marked ``stress`` without ``-m``.

click's ``addopts = -m 'not stress'`` silently turns pytest-testmon's selection off (it
then runs every test). Run with ``-o addopts= -p rts_nostress`` to give testmon a fair
comparison on the same tests.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    drop = [item for item in items if item.get_closest_marker("stress") is not None]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = [item for item in items if item.get_closest_marker("stress") is None]
