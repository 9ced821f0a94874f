"""Where in a file a project module is first imported, not how many statements import it.
A ``from module import ...`` statement removed while a later statement of the file takes
other names from the same module, with nothing run between the two, moves no import: the
module runs at the same moment (click's ``_termui_impl.py`` dropped ``from .utils import
_KeepOpenFile`` above ``from .utils import echo``; every test importing click ran). A
statement run between the old and the new first import (a call reading a registry), or a
first import moved past one, does move it. Real pytest sessions on temporary projects."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

FIRST = "from pkg.plugin import MARK\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """``plugin`` fills a registry at import (a call); ``core`` calls at import too (so a
    moved import of ``plugin`` there is seen by every importer) and copies the registry
    after taking two names from ``plugin``."""
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/registry.py", "ITEMS = []\n")
    write(
        pytester,
        "pkg/plugin.py",
        """
        from pkg import registry

        registry.ITEMS.append("plugin")
        MARK = 1
        OTHER = 2
        """,
    )
    write(
        pytester,
        "pkg/core.py",
        f"""
        from pkg import registry
        {FIRST.strip()}
        from pkg.plugin import OTHER

        SEEN = list(registry.ITEMS)


        def answer():
            return 42 + OTHER
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
            assert pkg.core.answer() == 44
        """,
    )
    return pytester


def test_an_import_removed_above_another_of_the_same_module_selects_nothing(
    project: pytest.Pytester,
) -> None:
    """``plugin`` is first imported by the next statement instead: the same moment."""
    assert run(project) == {"test_seen", "test_answer"}
    edit(project, "pkg/core.py", FIRST, "")
    assert run(project) == set()


def test_an_import_removed_above_a_call_reading_what_the_module_fills_selects_the_readers(
    project: pytest.Pytester,
) -> None:
    """Guard: the other statement importing ``plugin`` comes after the copy of the
    registry: ``plugin`` now runs after it and the copy misses its entry."""
    moved = "from pkg.plugin import OTHER\n\nSEEN = list(registry.ITEMS)\n"
    edit(
        project,
        "pkg/core.py",
        moved,
        "\nSEEN = list(registry.ITEMS)\nfrom pkg.plugin import OTHER\n",
    )
    assert run(project) == {"test_seen", "test_answer"}
    edit(project, "pkg/core.py", FIRST, "")
    assert "test_seen" in run(project)
    assert project.runpytest("-p", "no:cacheprovider").ret != 0


def test_a_first_import_moved_past_a_call_reading_what_the_module_fills_selects_the_readers(
    project: pytest.Pytester,
) -> None:
    """Guard: no statement removed, the imports of ``plugin`` moved below the copy."""
    assert run(project) == {"test_seen", "test_answer"}
    both = FIRST + "from pkg.plugin import OTHER\n"
    edit(project, "pkg/core.py", both, "")
    edit(
        project,
        "pkg/core.py",
        "SEEN = list(registry.ITEMS)\n",
        "SEEN = list(registry.ITEMS)\n" + both,
    )
    assert "test_seen" in run(project)


def test_the_only_import_of_a_module_removed_above_a_call_selects_the_readers(
    project: pytest.Pytester,
) -> None:
    """Guard: no other statement of the file imports ``plugin`` any more: it no longer
    runs before the copy (nor at all)."""
    edit(project, "pkg/core.py", "from pkg.plugin import OTHER\n", "OTHER = 2\n")
    assert run(project) == {"test_seen", "test_answer"}
    edit(project, "pkg/core.py", FIRST, "")
    assert "test_seen" in run(project)
    assert project.runpytest("-p", "no:cacheprovider").ret != 0


def test_two_first_imports_swapped_selects_the_readers_of_what_one_copies(
    project: pytest.Pytester,
) -> None:
    """Guard: ``snapshot`` copies the registry ``plugin`` fills; the file imported
    ``plugin`` first, then ``snapshot``, and the two statements swap: the copy is made
    before ``plugin`` runs. No statement is added or removed."""
    write(project, "pkg/snapshot.py", "from pkg import registry\n\nSEEN = list(registry.ITEMS)\n")
    pair = "from pkg.plugin import MARK\nfrom pkg.snapshot import SEEN as COPIED\n"
    edit(project, "pkg/core.py", FIRST, pair)
    write(
        project,
        "test_copy.py",
        """
        import pkg.core


        def test_copied():
            assert pkg.core.COPIED == ["plugin"]
        """,
    )
    assert "test_copied" in run(project)
    swapped = "from pkg.snapshot import SEEN as COPIED\nfrom pkg.plugin import MARK\n"
    edit(project, "pkg/core.py", pair, swapped)
    assert "test_copied" in run(project)
    assert project.runpytest("-p", "no:cacheprovider", "test_copy.py").ret != 0
