"""A class body that fills a container it built itself (boltons' ``FunctionBuilder``:
``_defaults = {...}`` then ``_defaults.update(_argspec_defaults)``, and a counter made by
``itertools.count()``) has no effect outside the class: the class keeps units of its own
(a changed method header selects the tests reading the method's name, not every importer),
and the filled name goes with the class unit, so its readers see the update. A call on a
module-level container from a class body is a registration: the class stays in the
module's unit."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "builder.py",
        """
        import itertools


        class Builder:
            _base = {"a": 1}
            _defaults = {"b": 2}
            _defaults.update(_base)
            _count = itertools.count()

            def build(self):
                return dict(self._defaults)

            def name(self):
                return "x"

            def other(self, x=1):
                return x
        """,
    )
    write(
        pytester,
        "test_builder.py",
        """
        import builder


        def test_build():
            assert builder.Builder().build() == {"a": 1, "b": 2}


        def test_name():
            assert builder.Builder().name() == "x"
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_build", "test_name"}
    return pytester


def test_a_method_header_no_test_reads_selects_nothing(project: pytest.Pytester) -> None:
    edit(project, "builder.py", "x=1", "x=2")
    assert run(project) == set()


def test_what_the_update_copies_selects_the_readers(project: pytest.Pytester) -> None:
    # The class unit reads ``_base`` (its update does): the class's users run too.
    edit(project, "builder.py", '_base = {"a": 1}', '_base = {"a": 3}')
    assert "test_build" in run(project)


def test_a_changed_update_selects_the_readers(project: pytest.Pytester) -> None:
    edit(project, "builder.py", "_defaults.update(_base)", "_defaults.update(_base, c=3)")
    assert "test_build" in run(project)


def test_an_update_of_a_module_container_is_a_registration(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "registry.py",
        """
        KINDS = []


        class Kind:
            KINDS.append("kind")

            def name(self):
                return "k"

            def other(self, x=1):
                return x


        def kinds():
            return list(KINDS)
        """,
    )
    write(
        pytester,
        "test_registry.py",
        """
        import registry


        def test_kinds():
            assert registry.kinds() == ["kind"]
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_kinds"}
    edit(pytester, "registry.py", 'KINDS.append("kind")', 'KINDS.append("sort")')
    assert run(pytester) == {"test_kinds"}


def test_an_update_that_may_raise_selects_every_importer(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "pairs.py",
        """
        class Pairs:
            _pairs = [("a", 1)]
            _defaults = {"b": 2}
            _defaults.update(_pairs)

            def name(self):
                return "p"


        def other():
            return 1
        """,
    )
    write(
        pytester,
        "test_pairs.py",
        """
        import pairs


        def test_other():
            assert pairs.other() == 1
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_other"}
    # ``[1]`` would fail the import: whatever ``update`` is handed goes in the module unit.
    edit(pytester, "pairs.py", '[("a", 1)]', '[("a", 3)]')
    assert run(pytester) == {"test_other"}
