"""Reading a signature (``inspect.signature``, ``__defaults__``, ``getfullargspec``) shows a
function's parameters and default values, never its body or docstring: a function's
default values are a unit of their own (``f.<defaults>``) beside its body. toolz reads
signatures while it is imported (``_signatures``' registry, ``curry``), so every test
importing it "read code" and a docstring edit of ``join`` selected 204 tests against
testmon's 10. Real pytest sessions: a docstring edit selects only the tests that read it, a
body edit only those that ran the function; a changed default still selects every test
that ran it or read its signature, at import or through a ``functools.wraps`` or
``curry``-style wrapper."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

SIGS = """
import inspect

REGISTRY = {}


def signature_or_spec(func):
    try:
        return inspect.signature(func)
    except (ValueError, TypeError):
        return None


def register(func):
    REGISTRY[func.__name__] = signature_or_spec(func)
    return func
"""

CORE = '''
import functools
import inspect

from pkg._sigs import register


def join(a, b, sep="-"):
    """Join two strings."""
    return a + sep + b


def split(text, sep="-"):
    """Split a string."""
    return text.split(sep)


def upper(text):
    """Upper-case a string."""
    return text.upper()


register(split)


class curry:
    def __init__(self, func):
        self.func = func

    def __call__(self, *args, **kwargs):
        return self.func(*args, **kwargs)

    @property
    def __signature__(self):
        return inspect.signature(self.func)


cjoin = curry(join)


def logged(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


@logged
def scale(x, factor=2):
    """Scale a number."""
    return x * factor
'''

TESTS = """
import inspect

from pkg import core
from pkg._sigs import REGISTRY


def test_join():
    assert core.join("a", "b") == "a-b"


def test_split():
    assert core.split("a-b") == ["a", "b"]


def test_upper():
    assert core.upper("a") == "A"


def test_registry():
    assert REGISTRY["split"].parameters["sep"].default == "-"


def test_curried_signature():
    assert inspect.signature(core.cjoin).parameters["sep"].default == "-"


def test_wrapped_signature():
    assert inspect.signature(core.scale).parameters["factor"].default == 2


def test_scale():
    assert core.scale(3) == 6


def test_doc():
    assert core.join.__doc__.startswith("Join")
"""

EVERY_TEST = {
    "test_join",
    "test_split",
    "test_upper",
    "test_registry",
    "test_curried_signature",
    "test_wrapped_signature",
    "test_scale",
    "test_doc",
}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/_sigs.py", SIGS)
    write(pytester, "pkg/core.py", CORE)
    write(pytester, "test_core.py", TESTS)
    assert run(pytester) == EVERY_TEST
    return pytester


def test_a_docstring_edit_selects_only_the_tests_that_read_it(
    project: pytest.Pytester,
) -> None:
    # Signatures were read at import (the registry) and through the wrappers: none of
    # those reads showed a docstring, and running a function does not read its own.
    edit(project, "pkg/core.py", "Join two strings.", "Join two texts.")
    assert run(project) == {"test_doc"}
    # test_doc reads docstrings: of every function whose header it depends on.
    edit(project, "pkg/core.py", "Split a string.", "Split a text.")
    assert run(project) <= {"test_doc"}
    edit(project, "pkg/core.py", "Scale a number.", "Scale a value.")
    assert run(project) <= {"test_doc"}


def test_a_body_edit_selects_only_the_tests_that_ran_the_function(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/core.py", "return text.split(sep)", "return list(text.split(sep))")
    assert run(project) == {"test_split"}
    edit(project, "pkg/core.py", "return x * factor", "return factor * x")
    assert run(project) == {"test_scale"}


def test_a_changed_default_selects_the_tests_that_ran_the_function_or_read_its_signature(
    project: pytest.Pytester,
) -> None:
    # The same values in other tokens: every outcome stays, the units change.
    edit(project, "pkg/core.py", 'split(text, sep="-")', 'split(text, sep="-" "")')
    assert {"test_split", "test_registry"} <= run(project)  # read at import
    edit(project, "pkg/core.py", 'join(a, b, sep="-")', 'join(a, b, sep="-" "")')
    assert {"test_join", "test_curried_signature"} <= run(project)  # through the curry
    edit(project, "pkg/core.py", "scale(x, factor=2)", "scale(x, factor=1 + 1)")
    selected = run(project)
    assert {"test_scale", "test_wrapped_signature"} <= selected  # through functools.wraps
