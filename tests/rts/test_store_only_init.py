"""``X = C(...)`` at import, of a class of the module whose ``__init__`` only stores its
parameters on the instance: a binding its readers alone see, on real pytest sessions.
sqlparse 519e41698a added ``_NO_SPANS = DelimitedSpans({}, {})`` to ``keywords.py``: a
call, so the module unit every test depends on changed (426 of 426 tests ran)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "spans.py",
        """
        class Spans:
            \"\"\"Where each span ends.\"\"\"

            __slots__ = ("starts", "kind")

            def __init__(self, starts, kind=None):
                self.starts = starts
                self.kind = kind

            def count(self):
                return len(self.starts)


        EMPTY = Spans({})


        def helper():
            return 1
        """,
    )
    write(
        pytester,
        "test_store_only_spans.py",
        """
        def test_empty():
            import spans

            assert spans.EMPTY.count() == 0


        def test_helper():
            import spans

            assert spans.helper() == 1
        """,
    )
    assert run(pytester) == {"test_empty", "test_helper"}
    return pytester


def test_a_new_instance_selects_nothing(project: pytest.Pytester) -> None:
    edit(project, "spans.py", "def helper", "FULL = Spans({1: 2}, kind='x')\n\n\ndef helper")
    assert run(project) == set()


def test_a_changed_instance_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "spans.py", "EMPTY = Spans({})", "EMPTY = Spans({1: 1})")
    assert run(project) == {"test_empty"}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # The call does not fit the signature: TypeError at import.
        ("EMPTY = Spans({})", "EMPTY = Spans()"),
        ("EMPTY = Spans({})", "EMPTY = Spans({}, kin=1)"),
        # An attribute __slots__ has no room for: AttributeError at import.
        ("self.kind = kind", "self.kind = kind\n        self.other = kind"),
        # __init__ runs more than stores: anything may happen.
        ("self.kind = kind", "self.kind = len(kind)"),
    ],
)
def test_what_may_raise_selects_every_importer(
    project: pytest.Pytester, old: str, new: str
) -> None:
    edit(project, "spans.py", old, new)
    assert run(project) == {"test_empty", "test_helper"}


def test_an_init_that_does_more_keeps_new_instances_in_the_module_unit(
    project: pytest.Pytester,
) -> None:
    edit(project, "spans.py", "self.kind = kind", "self.kind = kind\n        print(kind)")
    run(project)
    edit(project, "spans.py", "def helper", "FULL = Spans({1: 2})\n\n\ndef helper")
    assert run(project) == {"test_empty", "test_helper"}
