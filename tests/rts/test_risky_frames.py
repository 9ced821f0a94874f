"""A class whose bases come from another project module keeps what may raise besides its
bases' hooks in its frame (``rts.class_frames``): a method whose header may raise stays in
it, a plain method added is seen only by the tests that can see it (tenacity 44eaefb:
``retry_any(async_retry_base)`` has ``__init__(self, *retries: retry_base |
async_retry_base)``; adding ``__ror__`` reran every importer). What the frame's risky
statements compute from still selects every importer. Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

LIB = """
from base import Base
from kinds import Key


class Holder(Base):
    def hold(self, x: Key | None) -> None:
        return None


def plain():
    return 1
"""

# Imported in the tests: a failing import fails the tests, not their collection.
TESTS = """
def test_plain():
    import lib

    assert lib.plain() == 1


def test_hold():
    import lib

    assert lib.Holder().hold(None) is None
"""

EVERY_TEST = {"test_plain", "test_hold"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "kinds.py", "class Key:\n    pass\n\n\nOTHER = 1\n")
    write(pytester, "base.py", "class Base:\n    def greet(self):\n        return 'hi'\n")
    write(pytester, "lib.py", LIB)
    write(pytester, "test_lib.py", TESTS)
    assert run(pytester, flag="--reks-all") == EVERY_TEST
    return pytester


def test_a_plain_method_added_beside_a_risky_one_selects_no_importer_that_cannot_see_it(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "lib.py",
        "        return None\n",
        "        return None\n\n    def extra(self):\n        return 2\n",
    )
    assert run(project) == set()


def test_the_name_a_risky_method_header_reads_rebound_to_a_non_type_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "kinds.py", "class Key:\n    pass\n", "Key = 3\n")
    assert run(project) == EVERY_TEST  # TypeError at import: ``3 | None``


def test_the_risky_method_header_changed_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "lib.py", "x: Key | None", "x: Key | int")
    assert run(project) == EVERY_TEST
