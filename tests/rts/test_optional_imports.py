"""A module importing an optional library in ``try: import lib`` / ``except ImportError:
FLAG = False`` (python-validators' ``eth_address.py`` takes ``eth_hash`` so) changes only
its own namespace at import: each branch only imports and binds names. When such a module
is imported later in its package (a new check inserted above it, or the imports swapped),
the moment moves and nothing sees it; a ``try`` that writes another module's state does
not count. Real pytest sessions on temporary projects."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

_CHECK = """
from helpers import checker


@checker
def new_check(value):
    return value == "new"
"""

_OPTIONAL = """
from helpers import FLAGS, checker

HAS_BACKEND = True
try:
    import not_installed_backend_xyz  # noqa: F401
except ImportError:
    {handler}


@checker
def opt_check(value):
    return value == "opt"
"""

_ORDER = "from .reader import OPT_SEEN\nfrom .opt import opt_check\n"
_SWAPPED = "from .opt import opt_check\nfrom .reader import OPT_SEEN\n"


def _project(pytester: pytest.Pytester, handler: str) -> pytest.Pytester:
    """A package taking a check from ``old``, a flag from ``reader`` (which looks at
    ``helpers.FLAGS`` at import, without a call) and a check from ``opt``, which imports a
    missing library in ``try``; ``handler`` is what ``opt`` runs when it is missing."""
    write(
        pytester,
        "helpers.py",
        """
        from functools import wraps

        REGISTRY = []
        FLAGS = {}


        def checker(func):
            @wraps(func)
            def wrapper(*args):
                return bool(func(*args))

            return wrapper
        """,
    )
    write(pytester, "pkg/old.py", _CHECK.replace("new", "old"))
    write(pytester, "pkg/opt.py", _OPTIONAL.format(handler=handler))
    write(pytester, "pkg/reader.py", 'from helpers import FLAGS\n\nOPT_SEEN = "opt" in FLAGS\n')
    write(pytester, "pkg/__init__.py", "from .old import old_check\n" + _ORDER)
    write(
        pytester,
        "test_checks.py",
        """
        import helpers


        def test_old():
            from pkg import old_check

            assert old_check("old")


        def test_opt():
            from pkg import opt_check

            assert opt_check("opt")


        def test_opt_not_seen():
            import pkg

            assert not pkg.OPT_SEEN


        def test_no_new_name():
            import pkg

            assert not hasattr(pkg, "new_check")


        def test_registry_empty():
            import pkg  # noqa: F401

            assert helpers.REGISTRY == []
        """,
    )
    everything = {"test_old", "test_opt", "test_opt_not_seen", "test_no_new_name"}
    assert run(pytester) == everything | {"test_registry_empty"}
    return pytester


@pytest.fixture
def binding_handler(pytester: pytest.Pytester) -> pytest.Pytester:
    """``opt``'s handler only binds its own flag."""
    return _project(pytester, "HAS_BACKEND = False")


@pytest.fixture
def writing_handler(pytester: pytest.Pytester) -> pytest.Pytester:
    """``opt``'s handler writes ``helpers.FLAGS`` (no call), which ``reader`` looks at."""
    return _project(pytester, 'FLAGS["opt"] = False')


def _insert_new(pytester: pytest.Pytester, module: str) -> None:
    """A new module whose import the package's ``__init__`` inserts above the others."""
    write(pytester, "pkg/new.py", module)
    edit(pytester, "pkg/__init__.py", "from .old", "from .new import new_check\nfrom .old")


def test_new_quiet_module_above_an_optional_import_selects_only_the_readers_of_its_name(
    binding_handler: pytest.Pytester,
) -> None:
    """Precision (python-validators 5489605, ``bsc_address`` above ``eth_address``): every
    test ran before, as ``opt``'s moment moved."""
    _insert_new(binding_handler, _CHECK)
    assert ran_and_failed(binding_handler) == ({"test_no_new_name"}, {"test_no_new_name"})


def test_optional_import_moved_past_a_quiet_module_selects_nothing(
    binding_handler: pytest.Pytester,
) -> None:
    """Precision: ``opt`` now runs before ``reader``; its handler binds only its own flag."""
    edit(binding_handler, "pkg/__init__.py", _ORDER, _SWAPPED)
    assert ran_and_failed(binding_handler) == (set(), set())


def test_handler_writing_another_module_moved_past_its_reader_selects_the_reader(
    writing_handler: pytest.Pytester,
) -> None:
    """Guard: the handler fills ``helpers.FLAGS``; ``reader`` now runs after it."""
    edit(writing_handler, "pkg/__init__.py", _ORDER, _SWAPPED)
    ran, failed = ran_and_failed(writing_handler)
    assert failed == {"test_opt_not_seen"}
    assert "test_opt_not_seen" in ran


def test_new_module_calling_at_import_above_an_optional_import_selects_every_importer(
    binding_handler: pytest.Pytester,
) -> None:
    """Guard: the new module fills the registry at import (a call)."""
    _insert_new(binding_handler, 'import helpers\n\nhelpers.REGISTRY.append("new")\n' + _CHECK)
    ran, failed = ran_and_failed(binding_handler)
    assert failed == {"test_no_new_name", "test_registry_empty"}
    assert {"test_old", "test_opt"} <= ran


def test_new_quiet_module_importing_one_that_calls_selects_every_importer(
    binding_handler: pytest.Pytester,
) -> None:
    """Guard: the new module only defines, but imports a new one filling the registry."""
    write(binding_handler, "pkg/side.py", 'import helpers\n\nhelpers.REGISTRY.append("side")\n')
    _insert_new(binding_handler, "from . import side  # noqa: F401\n" + _CHECK)
    ran, failed = ran_and_failed(binding_handler)
    assert failed == {"test_no_new_name", "test_registry_empty"}
    assert {"test_old", "test_opt"} <= ran


def test_tests_left_out_for_an_unseen_moment_are_not_stale_at_the_next_run(
    binding_handler: pytest.Pytester,
) -> None:
    """Precision: the tests the first run left out (``opt``'s moment moved, unseen) did not
    run against ``opt``'s new ``<imports>`` unit; they need not run at the next session
    either (the replay of python-validators ran 604 of them at the commit after)."""
    _insert_new(binding_handler, _CHECK)
    assert ran_and_failed(binding_handler) == ({"test_no_new_name"}, {"test_no_new_name"})
    assert ran_and_failed(binding_handler) == ({"test_no_new_name"}, {"test_no_new_name"})
