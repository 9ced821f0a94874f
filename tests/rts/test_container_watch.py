"""Once a container is first filled, the code earlier tests ran is watched for the keys it
reads of it (``rts.filled_containers``, ``rts.keyed_reads``), on real pytest sessions.

Before, only the code of the test that filled it was: a reader that had run before (toolz's
``num_required_args``, warmed by earlier test files) read every entry the next time it ran,
so one test registering a local class tied the tests after it to that test; and a reader
watched for another container never told its keys of this one, so the test reading an entry
another test changed was not rerun when that test changed."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="keys read are told apart on 3.12+ (sys.monitoring)"
)

MODULE = """
REGISTRY = {}
OTHER = {}


def known(key):
    return key in REGISTRY


def both(key):
    return key in REGISTRY, OTHER.get(key)
"""

WARMED = """
import reg


def test_1_warms():
    assert not reg.known("x")


def test_2_registers():
    reg.REGISTRY["local"] = 1


def test_3_reads_another_key():
    assert not reg.known("other")


def test_4_reads_that_key():
    assert reg.known("local")
"""

WATCHED_FOR_ANOTHER = """
import reg


def test_1_fills_registry():
    reg.REGISTRY["a"] = 1
    assert reg.both("a") == (True, None)


def test_2_fills_other():
    reg.OTHER["k"] = 1


def test_3_reads_other():
    assert reg.both("k") == (False, 1)
"""


def _project(pytester: pytest.Pytester, tests: str) -> None:
    write(pytester, "reg.py", MODULE)
    write(pytester, "test_reg.py", tests)
    assert len(run(pytester, "-p", "no:randomly")) == tests.count("def test_")


def test_code_warmed_before_the_first_fill_reads_only_its_keys(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, WARMED)
    edit(pytester, "test_reg.py", 'REGISTRY["local"] = 1', 'REGISTRY["elsewhere"] = 1')
    ran, failed = ran_and_failed(pytester, "-p", "no:randomly")
    # The guard: the test reading the key the changed test added runs, and fails.
    assert failed == {"test_4_reads_that_key"}
    assert ran == {"test_2_registers", "test_4_reads_that_key"}  # not test_3


def test_code_watched_for_one_container_tells_its_keys_of_one_filled_later(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, WATCHED_FOR_ANOTHER)
    edit(pytester, "test_reg.py", 'OTHER["k"] = 1', 'OTHER["k"] = 2')
    ran, failed = ran_and_failed(pytester, "-p", "no:randomly")
    assert failed == {"test_3_reads_other"}
    assert ran == {"test_2_fills_other", "test_3_reads_other"}
