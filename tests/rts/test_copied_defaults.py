"""A decorator copying default values onto its wrapper (tenacity's ``Retrying.wraps``:
``functools.wraps(f, functools.WRAPPER_ASSIGNMENTS + ("__defaults__", "__kwdefaults__"))``
over ``def wrapped_f(*args, **kw)``), on real pytest sessions. Spelling ``__defaults__``
made every test that decorated a function a signature reader, which sees the default values
of every function whose header it depends on: tenacity ae2d75e changed an annotation of
``wait_exponential.__init__`` and 153 tests ran against testmon's 92.

A wrapper with no parameter but ``*args`` and ``**kwargs`` ignores the default values set
on it; they show only to code reading them off the wrapper later (which spells the read
itself) or to code calling the wrapped function (which runs its body, which holds them).

Guards: shapes just outside the rule, where the copied default values change what calling
the wrapper returns (the wrapper takes a parameter; another decorator under ``wraps`` hands
it a function that takes one), still select the test, which fails at the child; and so do
tests reading the default values off the function or its wrapper."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, write

pytest_plugins = ["pytester"]

LIB = """
import functools


def retry(f):
    @functools.wraps(f, functools.WRAPPER_ASSIGNMENTS + ("__defaults__", "__kwdefaults__"))
    def wrapped(*args, **kwargs):
        return f(*args, **kwargs)

    return wrapped


def scale(value, factor=2):
    return value * factor
"""

TESTS = """
import lib


def test_retry():
    assert lib.retry(len)("ab") == 2
    assert callable(lib.scale)


def test_call():
    assert lib.retry(lib.scale)(5) == 10


def test_read_defaults():
    assert lib.scale.__defaults__ == (2,)


def test_wrapper_defaults():
    assert lib.retry(lib.scale).__defaults__ == (2,)
"""

ALL = {"test_retry", "test_call", "test_read_defaults", "test_wrapper_defaults"}
READERS = {"test_call", "test_read_defaults", "test_wrapper_defaults"}


def _project(pytester: pytest.Pytester, lib: str, tests: str = TESTS) -> pytest.Pytester:
    write(pytester, "lib.py", lib)
    write(pytester, "test_lib.py", tests)
    assert ran_and_failed(pytester) == (ALL | {"test_guard"} & _names(tests), set())
    return pytester


def _names(tests: str) -> set[str]:
    return {line[4:].partition("(")[0] for line in tests.splitlines() if line.startswith("def ")}


def test_copying_default_values_onto_a_bare_wrapper_reads_none(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, LIB)
    edit(project, "lib.py", "factor=2", "factor=3")
    assert ran_and_failed(project) == (READERS, READERS)


# The wrapper takes ``value``: the copied ``(2,)`` becomes its default.
POSITIONAL = LIB.replace(
    "def wrapped(*args, **kwargs):\n        return f(*args, **kwargs)",
    "def wrapped(value, *args, **kwargs):\n        return value",
)

# ``wraps`` applies to what ``takes_value`` returns, a function taking ``value``.
STACKED = LIB.replace(
    "    def wrapped(*args, **kwargs):",
    "    @takes_value\n    def wrapped(*args, **kwargs):",
).replace(
    "\n\ndef retry(f):",
    "\n\ndef takes_value(g):\n    def inner(value):\n        return value\n\n"
    "    return inner\n\n\ndef retry(f):",
)

GUARD = """

def test_guard():
    assert lib.retry(lib.scale)() == 2
"""


@pytest.mark.parametrize("lib", [POSITIONAL, STACKED], ids=["positional", "stacked"])
def test_copying_default_values_onto_a_wrapper_taking_a_parameter_reads_them(
    pytester: pytest.Pytester, lib: str
) -> None:
    tests = TESTS.replace('assert lib.retry(len)("ab") == 2', "assert lib.retry(len)")
    tests = tests.replace("assert lib.retry(lib.scale)(5) == 10", "assert lib.retry(lib.scale)")
    project = _project(pytester, lib, tests + GUARD)
    edit(project, "lib.py", "factor=2", "factor=3")
    ran, failed = ran_and_failed(project)
    assert {"test_guard", "test_read_defaults", "test_wrapper_defaults"} <= ran
    assert failed == {"test_guard", "test_read_defaults", "test_wrapper_defaults"}
