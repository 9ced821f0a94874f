"""A top-level enumeration of constants over a standard-library enum class (``class
Color(enum.Enum): RED = "red"``) is made by ``EnumType``, which may raise (a name given
twice, a value its mixin refuses, a reserved name misused): such a class is made at
analysis time too, and one made here cannot raise at import (the analysis runs in the
interpreter that runs the tests). A member added then selects the tests that read the
class, not every importer of its module, on real pytest sessions; one that may raise keeps
the statement's effect on every importer."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "colors.py",
        """
        import enum
        from enum import Enum


        class Color(enum.Enum):
            \"\"\"Colors.\"\"\"

            #: The red one.
            RED = "red"
            GREEN = "green"

            def describe(self):
                return self.value.upper()


        class Size(int, Enum):
            SMALL = 1
            LARGE = 2


        class Names:
            TABLE = {Color.RED: "r", Color.GREEN: "g"}


        def helper():
            return 1
        """,
    )
    write(
        pytester,
        "test_colors.py",
        """
        def test_color():
            import colors  # at run time: a failing import fails the test, not collection

            assert colors.Color.RED.describe() == "RED"


        def test_size():
            import colors

            assert colors.Size.SMALL < colors.Size.LARGE


        def test_names():
            import colors

            assert colors.Names.TABLE[colors.Color.RED] == "r"


        def test_helper():
            import colors

            assert colors.helper() == 1
        """,
    )
    assert run(pytester) == {"test_color", "test_size", "test_names", "test_helper"}
    return pytester


def test_a_member_added_selects_the_readers_of_the_class(project: pytest.Pytester) -> None:
    edit(project, "colors.py", 'GREEN = "green"', 'GREEN = "green"\n    BLUE = "blue"')
    assert run(project) == {"test_color", "test_names"}  # test_names reads Color too
    edit(project, "colors.py", "LARGE = 2", "LARGE = 2\n    HUGE = 3")
    assert run(project) == {"test_size"}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('GREEN = "green"', 'GREEN = "green"\n    GREEN = "lime"'),  # a name given twice
        ("LARGE = 2", 'LARGE = 2\n    HUGE = "huge"'),  # int() refuses "huge"
        ('GREEN = "green"', 'GREEN = "green"\n    _ignore_ = 1'),  # a reserved name misused
    ],
)
def test_a_member_that_makes_the_class_raise_selects_every_importer(
    project: pytest.Pytester, old: str, new: str
) -> None:
    edit(project, "colors.py", old, new)
    assert run(project) == {"test_color", "test_size", "test_names", "test_helper"}


def test_a_table_keyed_by_members_selects_its_readers(project: pytest.Pytester) -> None:
    # A class-level table keyed by the members: it cannot raise while they are members.
    edit(project, "colors.py", 'GREEN = "green"', 'GREEN = "green"\n    BLUE = "blue"')
    edit(project, "colors.py", 'Color.GREEN: "g"', 'Color.GREEN: "g", Color.BLUE: "b"')
    assert run(project) == {"test_color", "test_names"}
    # A key no member any more: importing the module fails.
    edit(project, "colors.py", '\n    BLUE = "blue"', "")
    assert run(project) == {"test_color", "test_size", "test_names", "test_helper"}
