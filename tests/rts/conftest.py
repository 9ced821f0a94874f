"""Every test here edits modules and runs them again within a second: no bytecode caches."""

import pytest


@pytest.fixture(autouse=True)
def _fresh_modules(no_bytecode: None) -> None:
    """Edits within one second keep size and mtime: a stale ``.pyc`` would run old code."""
