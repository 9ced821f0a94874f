"""A top-level binding that may raise at import (``rts.import_raise``) removed: the
recorded import ran it without raising, so running the module without it cannot newly make
the import fail; what it bound is the binding rules' business (``rts.binding_reads``), on
real pytest sessions. tenacity b8b4675 removed an unused ``@contextmanager`` helper of
``tests/test_tenacity.py`` and the imports only it read: every test importing that module
ran (its unit held the helper's decorator, and they depended on ``contextmanager``)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

KEYS = """
REGISTRY = []


def hashkey(x):
    return x


def register(function):
    REGISTRY.append(function.__name__)
    return function
"""

MOD = """
import typing
from contextlib import contextmanager

import keys
from keys import register


@contextmanager
def helper() -> typing.Iterator[None]:
    yield


def cached(x, key=keys.hashkey):
    return key(x)


@register
def registered():
    return 1


def plain(x):
    return x + 1
"""

TESTS = """
def test_plain():
    import mod

    assert mod.plain(1) == 2


def test_cached():
    import mod

    assert mod.cached(2) == 2


def test_helper():
    import mod

    with mod.helper():
        pass


def test_registry():
    import keys
    import mod  # noqa: F401

    assert "registered" in keys.REGISTRY
"""

EVERY_TEST = {"test_plain", "test_cached", "test_helper", "test_registry"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "keys.py", KEYS)
    write(pytester, "mod.py", MOD)
    write(pytester, "test_mod.py", TESTS)
    assert run(pytester) == EVERY_TEST
    return pytester


HELPER = "@contextmanager\ndef helper() -> typing.Iterator[None]:\n    yield\n"


def test_a_removed_default_that_may_raise_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "mod.py", "def cached(x, key=keys.hashkey):\n    return key(x)\n", "")
    assert run(project) == {"test_cached"}  # AttributeError: the others cannot tell


def test_a_removed_decorator_and_the_imports_it_read_select_its_readers(
    project: pytest.Pytester,
) -> None:
    edit(project, "mod.py", HELPER, "")
    edit(project, "mod.py", "import typing\nfrom contextlib import contextmanager\n", "")
    assert run(project) == {"test_helper"}


def test_a_kept_decorator_whose_name_is_removed_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "mod.py", "from contextlib import contextmanager\n", "")
    assert run(project) == EVERY_TEST  # NameError at import


def test_a_kept_decorator_whose_name_is_bound_after_it_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "mod.py", "from contextlib import contextmanager\n", "")
    edit(
        project,
        "mod.py",
        "def plain(x):",
        "from contextlib import contextmanager\n\n\ndef plain(x):",
    )
    assert run(project) == EVERY_TEST  # NameError at import


def test_a_decorator_name_rebound_before_it_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "mod.py", "import keys\n", "import keys\ncontextmanager = None\n")
    assert run(project) == EVERY_TEST  # TypeError at import


def test_a_changed_or_new_part_that_may_raise_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "mod.py", "key=keys.hashkey)", "key=keys.missing)")
    assert run(project) == EVERY_TEST  # AttributeError at import
    edit(project, "mod.py", "key=keys.missing)", "key=keys.hashkey)")
    assert run(project) == EVERY_TEST
    edit(
        project, "mod.py", "def plain(x):", "def late(x=keys.missing):\n    pass\n\n\ndef plain(x):"
    )
    assert run(project) == EVERY_TEST


def test_a_removed_registration_selects_who_reads_the_registry(project: pytest.Pytester) -> None:
    edit(project, "mod.py", "@register\ndef registered():\n    return 1\n", "")
    assert "test_registry" in run(project)


def test_a_star_import_between_may_rebind_what_the_decorator_reads(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "other.py", "OTHER = 1\n")
    write(
        pytester,
        "mod.py",
        """
        from contextlib import contextmanager
        from other import *


        @contextmanager
        def helper():
            yield


        def plain(x):
            return x + 1
        """,
    )
    write(pytester, "test_mod.py", TESTS.split("\n\n\ndef test_cached")[0])
    assert run(pytester) == {"test_plain"}
    edit(pytester, "other.py", "OTHER = 1", "OTHER = 1\ncontextmanager = None")
    assert run(pytester) == {"test_plain"}  # TypeError at import
