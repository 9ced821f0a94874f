"""A statement binding a value computed from constants runs no code a first import can see.

more-itertools 7b2929c added ``__lazy_modules__ = frozenset({'queue'})`` at the top of
``more.py``, above ``from .recipes import ...``: a call, so the first import of ``recipes``
counted as moved past code that runs, and every test importing the package ran (725 of
725; pytest-testmon 586). ``frozenset`` of a literal, like the other values
``rts.constant_values`` computes at analysis time, runs no project code and changes nothing
outside the name it binds. The guards are the shapes just outside: the builtin's name
bound to project code earlier in the module, an argument that calls project code, and a
constant expression that raises at import. Real pytest sessions on temporary projects."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, run_result, write

pytest_plugins = ["pytester"]

FIRST = "from pkg.plugin import MARK\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """``plugin`` fills a registry at import; ``core`` copies the registry after its first
    import of ``plugin``, so code run above that import could be seen in the copy."""
    write(pytester, "pkg/__init__.py", "")
    write(
        pytester,
        "pkg/registry.py",
        """
        ITEMS = []


        def early(items):
            ITEMS.append("early")
            return items
        """,
    )
    write(
        pytester,
        "pkg/plugin.py",
        """
        from pkg import registry

        registry.ITEMS.append("plugin")
        MARK = 1
        """,
    )
    write(
        pytester,
        "pkg/core.py",
        f"""
        from pkg import registry
        {FIRST.strip()}

        SEEN = list(registry.ITEMS)


        def answer():
            return 41 + MARK
        """,
    )
    write(
        pytester,
        "test_core.py",
        """
        import pkg.core


        def test_seen():
            assert pkg.core.SEEN == ["plugin"]


        def test_answer():
            assert pkg.core.answer() == 42
        """,
    )
    assert run(pytester) == {"test_seen", "test_answer"}
    return pytester


def test_a_frozenset_of_a_literal_above_a_first_import_selects_nothing(
    project: pytest.Pytester,
) -> None:
    """Precision: the new name is read by no test, and no code runs before ``plugin``."""
    edit(project, "pkg/core.py", FIRST, "__lazy_modules__ = frozenset({'queue'})\n" + FIRST)
    assert run(project) == set()


def test_a_computed_constant_changed_above_a_first_import_selects_nothing(
    project: pytest.Pytester,
) -> None:
    """Precision: more-itertools 301c957 changed the set it is given."""
    edit(project, "pkg/core.py", FIRST, "__lazy_modules__ = frozenset({'queue'})\n" + FIRST)
    run(project)
    edit(project, "pkg/core.py", "{'queue'}", "{'queue', 'threading'}")
    assert run(project) == set()


def test_the_builtin_name_bound_to_project_code_above_a_first_import_selects_the_readers(
    project: pytest.Pytester,
) -> None:
    """Guard: ``frozenset`` is ``registry.early`` here, which fills the registry before
    ``plugin`` runs: the copy sees it and ``test_seen`` fails at the child."""
    shadowing = "from pkg.registry import early as frozenset\n"
    edit(project, "pkg/core.py", FIRST, shadowing + FIRST)
    run(project)
    edit(project, "pkg/core.py", FIRST, "__lazy_modules__ = frozenset({'queue'})\n" + FIRST)
    ran, failed = ran_and_failed(project)
    assert failed == {"test_seen"}
    assert "test_seen" in ran


def test_a_builtin_call_of_project_code_above_a_first_import_selects_the_readers(
    project: pytest.Pytester,
) -> None:
    """Guard: ``frozenset`` is the builtin, its argument a call filling the registry."""
    edit(project, "pkg/core.py", FIRST, "EARLY = frozenset(registry.early(()))\n" + FIRST)
    ran, failed = ran_and_failed(project)
    assert failed == {"test_seen"}
    assert "test_seen" in ran


def test_a_constant_expression_raising_above_a_first_import_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    """Guard: ``frozenset([[]])`` raises at import (a list is unhashable): the test file
    importing ``core`` is collected again and fails, as in a full run."""
    edit(project, "pkg/core.py", FIRST, "BAD = frozenset([[]])\n" + FIRST)
    result = run_result(project, "--reks")
    result.assert_outcomes(errors=1)
    assert "unhashable type" in result.stdout.str()
