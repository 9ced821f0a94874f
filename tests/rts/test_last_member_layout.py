"""A class's unit leaves out its plain members (``class_members.class_texts``), on real
pytest sessions; the line end and dedents closing what it keeps before a member left out
at the very end of the class are no text of its own either. A plain method appended after
the last dunder (tenacity cb320c4 added ``_check`` below ``retry_if_exception_type.__init__``),
or after a class-level attribute, selected every test reaching the class, as a changed
dunder does; it selects the readers of its name alone now. A dunder appended there still
selects every user of the class."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "kinds.py",
        """
        class Checker:
            def __init__(self, kind=ValueError):
                self.kind = kind


        class Labelled:
            def describe(self):
                return self.label

            label = "labelled"
        """,
    )
    write(
        pytester,
        "test_last_members.py",
        """
        import kinds


        def test_checker():
            assert kinds.Checker().kind is ValueError


        def test_labelled():
            assert kinds.Labelled().describe() == "labelled"


        def test_other():
            assert kinds.Labelled.__name__ == "Labelled"
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_checker", "test_labelled", "test_other"}
    return pytester


PLAIN = "\n    def check(self, e):\n        return isinstance(e, self.kind)\n"
DUNDER = "\n    def __eq__(self, other):\n        return True\n"


def test_a_plain_method_appended_after_the_last_dunder_selects_nothing(
    project: pytest.Pytester,
) -> None:
    edit(project, "kinds.py", "self.kind = kind\n", "self.kind = kind\n" + PLAIN)
    assert run(project) == set()


def test_a_plain_method_appended_after_an_attribute_selects_nothing(
    project: pytest.Pytester,
) -> None:
    edit(project, "kinds.py", 'label = "labelled"\n', 'label = "labelled"\n' + PLAIN)
    assert run(project) == set()


def test_the_last_plain_method_removed_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "kinds.py", "self.kind = kind\n", "self.kind = kind\n" + PLAIN)
    assert run(project) == set()
    edit(project, "kinds.py", PLAIN, "")
    assert run(project) == set()


def test_a_dunder_appended_after_the_last_dunder_selects_the_class_users(
    project: pytest.Pytester,
) -> None:
    edit(project, "kinds.py", "self.kind = kind\n", "self.kind = kind\n" + DUNDER)
    assert run(project) == {"test_checker"}


def test_a_dunder_appended_after_an_attribute_selects_the_class_users(
    project: pytest.Pytester,
) -> None:
    edit(project, "kinds.py", 'label = "labelled"\n', 'label = "labelled"\n' + DUNDER)
    assert run(project) == {"test_labelled", "test_other"}
