"""Functions decorated by a plain wrapper defined in *another* project module, on real
pytest sessions. The shape: a decorator module defines ``checker(func)``, which only builds
``@wraps(func) def wrapper(...)`` calling ``func`` and returns it; every checking module
imports ``checker`` and decorates its functions; a package ``__init__`` re-exports them all,
so every test imports every checking module. ``rts.wrapping_decorators`` recognises such
decorators in the same module only, so a decorated ``def`` stays in its module unit and a
new decorated ``def`` (a new validator) reruns every importer (issue 14, the validators
replay: ``@validator``). A changed body is already selected finely (function units); a new
``def`` and a changed header (validators 9dac863b45 adds a parameter with a default to
``@validator def url``) are not. A new ``from typing import Callable`` beside the decorator
module's own (the other suspect of 9dac863b45) selects no test today: a guard keeps it so.

``rts.imported_wrappers`` trusts such a decorator at analysis and checks it at selection;
the guards below (a decorator that registers what it decorates, one rebound after its
``def``) keep selecting the test that counts the registry, which fails at the child."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

DECORATOR = """
from functools import wraps
from typing import Callable


class Failure:
    def __init__(self, func):
        self.func = func

    def __bool__(self):
        return False


def checker(func: Callable):
    \"\"\"Return a Failure instead of False.\"\"\"

    @wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs) or Failure(func)

    return wrapper
"""


TYPING_IMPORT = "from typing import Callable\n\nfrom .base import checker"

ZERO = """return value % 2 == 0


@checker
def zero(value):
    return value == 0"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "checks/__init__.py", "from .even import even\nfrom .odd import odd\n")
    write(pytester, "checks/base.py", DECORATOR)
    write(
        pytester,
        "checks/even.py",
        """
        from .base import checker


        @checker
        def even(value):
            return value % 2 == 0
        """,
    )
    write(
        pytester,
        "checks/odd.py",
        """
        from .base import checker


        @checker
        def odd(value):
            return value % 2 == 1
        """,
    )
    write(
        pytester,
        "test_checks.py",
        """
        from checks import even, odd


        def test_even():
            assert even(2)
            assert not even(3)


        def test_odd():
            assert odd(3)
            assert not odd(2)
        """,
    )
    assert run(pytester) == {"test_even", "test_odd"}
    return pytester


def test_a_new_function_under_an_imported_wrapper_selects_no_test(
    project: pytest.Pytester,
) -> None:
    # No test reads ``zero``; applying ``checker`` at import only builds a wrapper.
    edit(project, "checks/even.py", "return value % 2 == 0", ZERO)
    assert run(project) == set()


def test_a_changed_body_under_an_imported_wrapper_selects_its_callers(
    project: pytest.Pytester,
) -> None:
    edit(project, "checks/even.py", "return value % 2 == 0", "return not value % 2")
    assert run(project) == {"test_even"}


def test_a_new_import_of_a_name_the_decorator_module_also_imports_selects_no_test(
    project: pytest.Pytester,
) -> None:
    # ``base`` reads ``Callable`` (taken from ``typing``) when its annotations are evaluated;
    # a new binding of the same name in ``even`` is read by no test.
    edit(project, "checks/even.py", "from .base import checker", TYPING_IMPORT)
    assert run(project) == set()


def test_a_new_default_parameter_under_an_imported_wrapper_selects_its_callers(
    project: pytest.Pytester,
) -> None:
    edit(project, "checks/even.py", "def even(value):", "def even(value, base=2):")
    edit(project, "checks/even.py", "value % 2 == 0", "value % base == 0")
    assert run(project) == {"test_even"}


def test_a_changed_imported_wrapper_selects_everything_it_wraps(
    project: pytest.Pytester,
) -> None:
    edit(project, "checks/base.py", "or Failure(func)", "or Failure(wrapper)")
    assert run(project) == {"test_even", "test_odd"}


REGISTERING = {
    # ``checker`` registers what it decorates: no wrapper.
    "registers": ("    @wraps(func)", "    REGISTERED.append(func)\n\n    @wraps(func)"),
    # A wrapper, but the name is bound to something else by the module's end.
    "rebound": (
        "    return wrapper\n",
        "    return wrapper\n\n\ndef registering(func):\n    REGISTERED.append(func)\n"
        "    return func\n\n\nif REGISTERED is not None:\n    checker = registering\n",
    ),
    # A wrapper, but ``wraps`` is the module's own by the time another module applies it.
    "wraps rebound": (
        "    return wrapper\n",
        "    return wrapper\n\n\ndef wraps(func):\n    REGISTERED.append(func)\n"
        "    return lambda wrapper: wrapper\n",
    ),
}
CHANGES = {
    "new def": ("checks/even.py", "return value % 2 == 0", ZERO),
    "decorator gone": ("checks/odd.py", "@checker\ndef odd", "def odd"),
}


def _registering(pytester: pytest.Pytester, old: str, new: str) -> pytest.Pytester:
    """The project with a ``checker`` of ``base`` that registers what it decorates (as
    ``old`` -> ``new`` makes it), and a test counting the registry."""
    edit(
        pytester,
        "checks/base.py",
        "from typing import Callable",
        "from typing import Callable\n\nREGISTERED = []",
    )
    edit(pytester, "checks/base.py", old, new)
    write(
        pytester,
        "test_registry.py",
        """
        from checks import base


        def test_count():
            assert len(base.REGISTERED) == 2
        """,
    )
    assert ran_and_failed(pytester) == ({"test_even", "test_odd", "test_count"}, set())
    return pytester


@pytest.mark.parametrize("old, new", REGISTERING.values(), ids=REGISTERING.keys())
@pytest.mark.parametrize("path, before, after", CHANGES.values(), ids=CHANGES.keys())
def test_a_decorator_that_registers_selects_every_importer(
    project: pytest.Pytester, old: str, new: str, path: str, before: str, after: str
) -> None:
    project = _registering(project, old, new)
    edit(project, path, before, after)
    assert ran_and_failed(project) == ({"test_even", "test_odd", "test_count"}, {"test_count"})


@pytest.mark.parametrize("path, before, after", CHANGES.values(), ids=CHANGES.keys())
def test_a_registering_decorator_left_unrun_by_a_partial_run_runs_next_time(
    project: pytest.Pytester, path: str, before: str, after: str
) -> None:
    project = _registering(project, *REGISTERING["registers"])
    edit(project, path, before, after)
    assert ran_and_failed(project, "-k", "test_even") == ({"test_even"}, set())
    assert ran_and_failed(project) == ({"test_odd", "test_count"}, {"test_count"})
