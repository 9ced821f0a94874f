"""``namedtuple`` of constant arguments at import: tried at analysis time as a constant
``re.compile`` is (``rts.constant_calls``), so one that builds cannot raise and is a
binding its readers alone see, on real pytest sessions. sqlparse d1d8060274 added
``_DelimiterOccurrence = namedtuple(...)`` to ``sqlparse/utils.py`` and 519e41698a took it
out: both changed the module unit every test depends on (499 of 499 tests)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "util.py",
        """
        from collections import namedtuple

        Pair = namedtuple("Pair", "left right")


        def helper():
            return 1
        """,
    )
    write(
        pytester,
        "test_util.py",
        """
        def test_pair():
            import util

            assert util.Pair(1, 2).left == 1


        def test_helper():
            import util

            assert util.helper() == 1
        """,
    )
    assert run(pytester) == {"test_pair", "test_helper"}
    return pytester


def test_a_new_namedtuple_that_builds_selects_nothing(project: pytest.Pytester) -> None:
    edit(
        project,
        "util.py",
        "def helper",
        'Span = namedtuple("Span", ["start", "end"], defaults=[0])\n\n\ndef helper',
    )
    assert run(project) == set()


def test_a_changed_namedtuple_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "util.py", '"left right"', '"left right middle"')
    assert run(project) == {"test_pair"}


def test_a_removed_namedtuple_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "util.py", 'Pair = namedtuple("Pair", "left right")', "")
    assert run(project) == {"test_pair"}


@pytest.mark.parametrize(
    "bad",
    [
        'namedtuple("Bad", "a a")',  # a field named twice
        'namedtuple("Bad", "a def")',  # a keyword
        'namedtuple("Bad", ["a", "b"], defaults=[1, 2, 3])',  # more defaults than fields
        "namedtuple(NAME.title(), 'a')",  # not computed here: unknown until import
    ],
)
def test_a_namedtuple_that_may_raise_selects_every_importer(
    project: pytest.Pytester, bad: str
) -> None:
    edit(project, "util.py", "def helper", f"NAME = 'B'\nBad = {bad}\n\n\ndef helper")
    assert run(project) == {"test_pair", "test_helper"}
