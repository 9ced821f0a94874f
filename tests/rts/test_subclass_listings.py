"""``Base.__subclasses__()`` lists classes the test never names: a subclass removed, or
added, changes what it finds. A test whose code asks a class for its subclasses depends on
every class statement of the modules it depends on, as a lookup by string does: a class
gone with its members (``unit_names.gone_with_class``) must still select it."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

LIB = """
class Base:
    pass


class A(Base):
    x = 1


class B(Base):
    x = 2


def helper():
    return 1
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "lib.py", LIB)
    write(
        pytester,
        "test_lib.py",
        """
        import lib


        def test_sum():
            assert sum(s.x for s in lib.Base.__subclasses__()) == 3


        def test_helper():
            assert lib.helper() == 1
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_sum", "test_helper"}
    return pytester


def test_a_removed_subclass_selects_the_test_listing_subclasses(
    project: pytest.Pytester,
) -> None:
    edit(project, "lib.py", "\n\nclass B(Base):\n    x = 2\n", "")
    assert run(project) == {"test_sum"}


def test_a_new_subclass_selects_the_test_listing_subclasses(project: pytest.Pytester) -> None:
    edit(project, "lib.py", "\n\ndef helper", "\n\nclass C(Base):\n    x = 4\n\n\ndef helper")
    assert run(project) == {"test_sum"}
