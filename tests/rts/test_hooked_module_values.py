"""Values of a project module whose attribute lookups run the project's code: the recorder
looks through every module's values for caches and containers (``rts.cache_hits``,
``rts.filled_containers``) without running any of it.

itsdangerous 1.1 (``_json.deprecated_json``: a ``ModuleType`` whose ``__getattribute__``
warns, under ``filterwarnings = error``): ``isinstance(value, type)`` reads
``value.__class__`` through that hook, the warning was an error, pytest stopped with
INTERNALERROR before the first test, and every later ``--reks`` run ran nothing: a replay
from 981ade6e on selected no test, and missed the failing ones at 1776c8f7 and 2881d93e.
A value whose hooks raise (a proxy usable only in a context) crashed the same walks.
Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import ERROR_FILTERS_INI, edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]


_WARNING_HOOK = """
import json
import warnings
from types import ModuleType


class DeprecatedJSON(ModuleType):
    def __getattribute__(self, item):
        warnings.warn("use json", DeprecationWarning, stacklevel=2)
        return getattr(json, item)


deprecated_json = DeprecatedJSON("json")
"""
# A proxy bound at import and usable only inside a context (werkzeug's ``LocalProxy`` for
# flask's ``request``): any attribute, ``__class__`` and ``__func__`` too, raises outside it.
# Bound at the top level, as a class attribute and in a container.
_RAISING_HOOK = """
import json


class Unbound:
    def __getattribute__(self, item):
        raise RuntimeError("working outside of the context")


request = Unbound()
HANDLERS = {"request": Unbound()}


class View:
    current = Unbound()
    handlers = [Unbound()]


def path_of(value=request, name="path"):
    try:
        return getattr(value, name)
    except RuntimeError:
        return "outside"
"""
_OUTSIDE_TEST = """

def test_outside():
    from compat import path_of

    assert path_of() == "outside"
"""


@pytest.fixture(params=["warns", "raises"])
def project(pytester: pytest.Pytester, request: pytest.FixtureRequest) -> pytest.Pytester:
    write(pytester, "pytest.ini", ERROR_FILTERS_INI)
    raises = request.param == "raises"
    write(
        pytester,
        "compat.py",
        (_RAISING_HOOK if raises else _WARNING_HOOK)
        + """

def dumps(value):
    return json.dumps(value)
""",
    )
    tests = """
from compat import dumps


def test_dumps():
    assert dumps(1) == "1"


def test_other():
    assert True
"""
    write(pytester, "test_compat.py", tests + (_OUTSIDE_TEST if raises else ""))
    every = {"test_dumps", "test_other"} | ({"test_outside"} if raises else set())
    assert run(pytester, flag="--reks-all") == every
    return pytester


def test_a_changed_function_beside_hooked_values_selects(project: pytest.Pytester) -> None:
    edit(project, "compat.py", "return json.dumps(value)", 'return json.dumps(value) + " "')
    assert ran_and_failed(project) == ({"test_dumps"}, {"test_dumps"})


def test_nothing_changed_beside_hooked_values_selects_nothing(project: pytest.Pytester) -> None:
    assert run(project) == set()
