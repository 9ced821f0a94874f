"""A class with a base from another project module keeps in its frame (``C.<frame>``:
``rts.class_frames``) the parts of its methods' headers that may raise, not the whole
headers (tenacity 39eb157: ``enabled: bool = True`` added to ``AsyncRetrying.__init__``,
whose defaults call code, selected every test importing ``tenacity.asyncio``;
pytest-testmon: the tests that ran it). A risky part changed, added or made to fail still
selects every importer."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

_BASE = """
class Waiter:
    def __call__(self, n):
        return 0


def wait_none():
    return Waiter()


class BaseRetrying:
    def __init__(self, wait=None, name=None):
        self.wait = wait
        self.name = name
"""

_AIO = """
from retry_base import BaseRetrying, wait_none


class AsyncRetrying(BaseRetrying):
    def __init__(self, wait=wait_none(), name=None):
        super().__init__(wait=wait, name=name)

    def label(self):
        return "async"


def helper():
    return 1
"""

# Imported as the tests run: a module failing to import fails the tests selected alone.
_TESTS = """
def test_helper():
    from retry_aio import helper

    assert helper() == 1


def test_async():
    from retry_aio import AsyncRetrying

    assert AsyncRetrying().label() == "async"
"""

_HEADER = "def __init__(self, wait=wait_none(), name=None):"


@pytest.fixture
def retrying(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "retry_base.py", _BASE)
    write(pytester, "retry_aio.py", _AIO)
    write(pytester, "test_retry_frames.py", _TESTS)
    assert run(pytester) == {"test_helper", "test_async"}
    return pytester


def test_a_parameter_with_a_constant_default_runs_the_class_tests(
    retrying: pytest.Pytester,
) -> None:
    new = "def __init__(self, wait=wait_none(), name=None, enabled: bool = True):"
    edit(retrying, "retry_aio.py", _HEADER, new)
    assert run(retrying) == {"test_async"}


def test_a_risky_part_changed_runs_every_importer(retrying: pytest.Pytester) -> None:
    edit(retrying, "retry_aio.py", _HEADER, "def __init__(self, wait=wait_none() or 1, name=None):")
    assert run(retrying) == {"test_helper", "test_async"}


@pytest.mark.parametrize(
    "new",
    [
        "def __init__(self, wait=wait_none(3), name=None):",
        "def __init__(self, wait=wait_none(), name=None, enabled=missing):",
        "def __init__(self, wait=wait_none(), name: missing = None):",
    ],
    ids=["call", "default", "annotation"],
)
def test_a_risky_part_that_fails_runs_every_importer(retrying: pytest.Pytester, new: str) -> None:
    edit(retrying, "retry_aio.py", _HEADER, new)
    both = {"test_helper", "test_async"}
    assert ran_and_failed(retrying) == (both, both)
