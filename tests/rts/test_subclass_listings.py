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


def test_a_subclass_in_a_module_only_another_test_imports(pytester: pytest.Pytester) -> None:
    """In a whole session the listing holds ``other.B``, which only ``test_other.py``
    imports: the listing test never depended on ``other.py`` (``rts.session_listings``)."""
    write(pytester, "lib.py", "class Base:\n    pass\n\n\nclass A(Base):\n    x = 1\n")
    write(pytester, "other.py", "import lib\n\n\nclass B(lib.Base):\n    x = 2\n")
    write(
        pytester,
        "test_lib.py",
        """
        import lib


        def test_sum():
            assert sum(s.x for s in lib.Base.__subclasses__()) == 3
        """,
    )
    write(pytester, "test_other.py", "import other\n\n\ndef test_b():\n    assert other.B.x == 2\n")
    assert run(pytester, flag="--reks-all") == {"test_sum", "test_b"}
    edit(pytester, "other.py", "class B(lib.Base):", "class B:")
    assert "test_sum" in run(pytester)


def test_a_subclass_in_a_new_test_file(project: pytest.Pytester) -> None:
    """A new test file is in no record, but its classes join the session's listing."""
    write(
        project,
        "test_new.py",
        """
        import lib


        class C(lib.Base):
            x = 4


        def test_c():
            assert C.x == 4
        """,
    )
    assert run(project) == {"test_sum", "test_c"}


def test_nothing_changed_and_no_new_test_file_runs_nothing(project: pytest.Pytester) -> None:
    write(project, "helpers_for_tests.py", "VALUE = 1\n")  # not named like a test file
    assert run(project) == set()
