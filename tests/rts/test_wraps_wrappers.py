"""A decorator of the same module that only builds ``@wraps(func) def wrapper(...)`` and
returns it (``rts.wrapping_decorators``), on real pytest sessions. Applying it at import
defines ``wrapper`` and copies ``func``'s name, docstring and attributes onto it
(``functools.update_wrapper`` cannot raise for a function): nothing outside what it returns
changes, so a new decorated ``def`` selects no test and a new default parameter selects the
callers alone (issue 14, the validators replay: ``@validator``). Not recognised, such a
decorator kept every ``def`` it decorates in the module unit: any new one reran every
importer.

Guards: shapes just outside the rule, where applying the decorator has an effect a test can
see (it registers what it wraps: by a statement of its own, by the default of ``wrapper``,
or by a ``wraps`` of the project's own), still select the test that counts the registry,
which fails at the child."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, write

pytest_plugins = ["pytester"]

CHECKS = """
from functools import wraps

REGISTERED = []


def checker(func):
    \"\"\"Return a tuple (the result, the function's name).\"\"\"

    @wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs), func.__name__

    return wrapper


@checker
def even(value):
    return value % 2 == 0


@checker
def odd(value):
    return value % 2 == 1
"""

TESTS = """
import checks


def test_even():
    assert checks.even(2) == (True, "even")


def test_odd():
    assert checks.odd(3) == (True, "odd")


def test_registered():
    assert len(checks.REGISTERED) in (0, 1, 2)
"""

ZERO = """@checker
def zero(value):
    return value == 0


@checker
def even(value):"""

ALL = {"test_even", "test_odd", "test_registered"}


# Each test imports ``checks`` itself: when the import breaks, every selected test
# fails on its own and one left out shows (with one import at the top, the file's
# collection error hid which of its tests were selected).
IMPORTING_TESTS = TESTS.replace("import checks\n", "").replace(
    "():\n", "():\n    import checks\n\n"
)


def _project(pytester: pytest.Pytester, checks: str, tests: str = TESTS) -> pytest.Pytester:
    write(pytester, "checks.py", checks)
    write(pytester, "test_checks.py", tests)
    assert ran_and_failed(pytester) == (ALL, set())
    return pytester


# validators' ``@validator``: ``def wrapper(*args: Any, **kwargs: Any)``.
ANNOTATED = CHECKS.replace(
    "from functools import wraps", "from functools import wraps\nfrom typing import Any"
).replace("def wrapper(*args, **kwargs):", "def wrapper(*args: Any, **kwargs: Any) -> Any:")


DOTTED = CHECKS.replace("from functools import wraps", "import functools").replace(
    "@wraps(func)", "@functools.wraps(func)"
)


@pytest.mark.parametrize(
    "checks", [CHECKS, ANNOTATED, DOTTED], ids=["plain", "annotated", "functools.wraps"]
)
def test_a_new_function_under_a_wraps_wrapper_selects_no_test(
    pytester: pytest.Pytester, checks: str
) -> None:
    project = _project(pytester, checks)
    edit(project, "checks.py", "@checker\ndef even(value):", ZERO)
    assert ran_and_failed(project) == (set(), set())


def test_a_new_default_parameter_under_a_wraps_wrapper_selects_its_callers(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, CHECKS)
    edit(project, "checks.py", "def even(value):", "def even(value, base=2):")
    edit(project, "checks.py", "value % 2 == 0", "value % base == 0")
    assert ran_and_failed(project) == ({"test_even"}, set())


REGISTERING = {
    "a statement": ("    @wraps(func)", "    REGISTERED.append(func)\n\n    @wraps(func)"),
    "a default of the wrapper": (
        "def wrapper(*args, **kwargs):",
        "def wrapper(*args, _=REGISTERED.append(func), **kwargs):",
    ),
    "the project's own wraps": (
        "from functools import wraps",
        "import functools\n\n\ndef wraps(func):\n"
        "    REGISTERED.append(func)\n    return functools.wraps(func)",
    ),
}


@pytest.mark.parametrize("old, new", REGISTERING.values(), ids=REGISTERING.keys())
def test_a_wrapper_that_registers_keeps_a_new_function_in_the_module_unit(
    pytester: pytest.Pytester, old: str, new: str
) -> None:
    project = _project(pytester, CHECKS.replace(old, new))
    edit(project, "checks.py", "@checker\ndef even(value):", ZERO)
    assert ran_and_failed(project) == (ALL, {"test_registered"})


STRICT = """

def strict(func, level):
    @wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs), level

    return wrapper
"""


def test_a_wrapper_applied_against_its_signature_keeps_a_new_function_in_the_module_unit(
    pytester: pytest.Pytester,
) -> None:
    # ``strict`` has the shape but takes two arguments: its first use breaks the import.
    checks = CHECKS.replace("\n\n@checker\ndef even", STRICT + "\n\n@checker\ndef even")
    project = _project(pytester, checks, IMPORTING_TESTS)
    edit(project, "checks.py", "@checker\ndef even(value):", ZERO.replace("checker", "strict", 1))
    assert ran_and_failed(project) == (ALL, ALL)  # TypeError at import


CALLED = """

def register(func):
    REGISTERED.append(func)
    return func


@checker(register)
def named(value):
    return value
"""


def test_a_wraps_wrapper_called_keeps_what_it_decorates_in_the_module_unit(
    pytester: pytest.Pytester,
) -> None:
    # ``checker(register)`` wraps ``register``: applied to ``named`` it calls it, which
    # registers ``named``. A test reading the registry sees a default added to ``named``.
    checks = CHECKS.replace("\n\n@checker\ndef even", CALLED + "\n\n@checker\ndef even")
    project = _project(pytester, checks)
    write(
        project,
        "test_names.py",
        """
        import checks


        def test_defaults():
            assert [f.__defaults__ for f in checks.REGISTERED] == [None]
        """,
    )
    assert ran_and_failed(project) == ({"test_defaults"}, set())
    edit(project, "checks.py", "def named(value):", "def named(value, scale=1):")
    assert ran_and_failed(project) == (ALL | {"test_defaults"}, {"test_defaults"})


LATER = """

def later(func):
    @wraps(func)
    def wrapper(*args: Later):
        return func(*args)

    return wrapper
"""


def test_a_wrapper_annotated_with_a_name_bound_later_keeps_a_new_function_in_the_module_unit(
    pytester: pytest.Pytester,
) -> None:
    # Applying ``later`` before ``class Later`` runs evaluates the annotation: NameError.
    checks = CHECKS.replace("\n\n@checker\ndef even", LATER + "\n\n@checker\ndef even")
    project = _project(pytester, checks + "\n\nclass Later:\n    pass\n", IMPORTING_TESTS)
    edit(project, "checks.py", "@checker\ndef even(value):", ZERO.replace("checker", "later", 1))
    assert ran_and_failed(project) == (ALL, ALL)  # NameError at import
