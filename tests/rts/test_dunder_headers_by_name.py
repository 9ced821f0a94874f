"""A dunder method's header held by its class's unit is not reached by its name alone.

Code reaches ``C.__init__`` through an object or class it got by reading ``C`` or a
subclass (whose statement reads ``C``): the class's unit, which holds the header, is its
dependency then; or by running it, which makes the header one. Every tenacity test ran some
``super().__init__()``, read the name ``__init__``, and so depended on every class's
``__init__`` header: 1106b9a changed ``wait_exponential_jitter.__init__``'s parameters and
155 tests ran against testmon's 150. Real pytest sessions.

Guards (each fails at the child): a subclass in another module calling the changed
``__init__`` through ``super()``, a module-level instance initialised again by a test, and
a method of a class that stays in the module unit."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, write

pytest_plugins = ["pytester"]

LIB = """
class Base:
    def __init__(self):
        self.ready = True


class Jitter(Base):
    def __init__(self, initial=1):
        super().__init__()
        self.initial = initial


class Fixed(Base):
    def __init__(self, wait=1):
        super().__init__()
        self.wait = wait


DEFAULT = Fixed(wait=1)
"""

SUB = """
import lib


class Slow(lib.Jitter):
    def __init__(self):
        super().__init__(5)
"""

TESTS = """
import lib
import sub


def test_fixed():
    assert lib.Fixed().wait == 1


def test_jitter():
    assert lib.Jitter(2).initial == 2


def test_sub():
    assert sub.Slow().initial == 5


def test_default_again():
    lib.DEFAULT.__init__()
    assert lib.DEFAULT.wait == 1
"""

ALL = {"test_fixed", "test_jitter", "test_sub", "test_default_again"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "lib.py", LIB)
    write(pytester, "sub.py", SUB)
    write(pytester, "test_lib.py", TESTS)
    assert ran_and_failed(pytester) == (ALL, set())
    return pytester


def test_a_changed_dunder_header_selects_no_mere_reader_of_its_name(
    project: pytest.Pytester,
) -> None:
    # test_fixed read ``__init__`` (``super().__init__()``) but never ran Jitter's.
    edit(project, "lib.py", "def __init__(self, initial=1):", "def __init__(self, initial):")
    assert ran_and_failed(project) == ({"test_jitter", "test_sub"}, set())


def test_a_dunder_header_made_incompatible_selects_who_reaches_it(
    project: pytest.Pytester,
) -> None:
    edit(project, "lib.py", "def __init__(self, initial=1):", "def __init__(self, *, initial=1):")
    edit(project, "lib.py", "def __init__(self, wait=1):", "def __init__(self, wait):")
    ran, failed = ran_and_failed(project)
    assert {"test_jitter", "test_sub", "test_default_again", "test_fixed"} <= ran
    assert failed == ALL


MODULE_UNIT = LIB.replace(
    "class Jitter(Base):", "print('jitter')\n\n\nclass Jitter(Base):"
).replace(
    "    def __init__(self, initial=1):",
    "    print('in the body')\n\n    def __init__(self, initial=1):",
)


def test_a_dunder_header_of_a_class_in_the_module_unit_still_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "lib.py", MODULE_UNIT)
    write(pytester, "sub.py", SUB)
    write(pytester, "test_lib.py", TESTS)
    assert ran_and_failed(pytester) == (ALL, set())
    edit(pytester, "lib.py", "def __init__(self, initial=1):", "def __init__(self, initial):")
    assert ran_and_failed(pytester) == (ALL, set())
