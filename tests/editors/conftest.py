"""Fixtures for the editor tests: the real Neovim binaries, one test per version."""

from __future__ import annotations

import pytest

from .tools import Neovim, find_neovim, missing


@pytest.fixture(params=["0.7", "0.11"])
def nvim(request: pytest.FixtureRequest) -> Neovim:
    found = find_neovim(request.param)
    if found is None:
        missing(f"Neovim {request.param} is not installed (see .ci/setup-system)")
        raise AssertionError("unreachable")
    return found
