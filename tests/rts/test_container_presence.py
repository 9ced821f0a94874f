"""A membership test (``k in d``) sees only whether an entry is there: a later test doing it
depends on the tests that added or dropped the entry, not on those that only bound it to
another value (marshmallow's class registry: ``if fullpath not in _registry: ...`` in every
test defining a schema, while each one rebinds the entry of its module's class name).
``test_warms`` runs the readers once after the registry was first changed: code that had
not run since then reads every entry (its keys were not watched yet)."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

needs_keys = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="keys read are told apart on 3.12+ (sys.monitoring)"
)

MODULE = """
_REGISTRY = {"known": 0}


def version():
    return 1


def new_name():
    return "added"


def rebind():
    _REGISTRY["known"] = version()


def add():
    name = new_name()
    _REGISTRY[name] = 1


def has(name):
    return name in _REGISTRY


def value(name):
    return _REGISTRY[name]
"""

TESTS = """
import reg


def test_rebinds():
    reg.rebind()


def test_adds():
    reg.add()


def test_warms():
    assert not reg.has("nothing")
    reg.value("known")


def test_has_known():
    assert reg.has("known")


def test_value_known():
    reg.value("known")


def test_has_added():
    assert reg.has("added")
"""


@pytest.fixture
def registry(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "reg.py", MODULE)
    write(pytester, "test_reg.py", TESTS)
    everything = {"test_rebinds", "test_adds", "test_warms", "test_has_known", "test_value_known"}
    assert run(pytester, flag="--reks-all") == everything | {"test_has_added"}
    return pytester


@needs_keys
def test_an_entry_rebound_is_no_change_to_a_membership_test(registry: pytest.Pytester) -> None:
    edit(registry, "reg.py", "return 1", "return 2")
    assert run(registry) == {"test_rebinds", "test_warms", "test_value_known"}


def test_an_entry_added_reaches_a_membership_test(registry: pytest.Pytester) -> None:
    edit(registry, "reg.py", 'return "added"', 'return "other"')
    expected = {"test_adds", "test_warms", "test_has_added"}
    if sys.version_info < (3, 12):  # there every read reads every entry
        expected |= {"test_has_known", "test_value_known"}
    assert run(registry) == expected
