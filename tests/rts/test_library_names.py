"""A name taken from an installed library the module imported already (``rts.library_names``):
``import pluggy`` above, ``MARKER = pluggy.HookimplMarker`` or ``from pluggy import
HookimplMarker`` (under ``from pluggy import HookspecMarker``: the library's import moment is
``rts.import_statements``') cannot raise once the installed ``pluggy`` binds the name, which
a fresh process of the test interpreter tells. typeguard 1cd7638 added ``type_alias_types
= (typing_extensions.TypeAliasType,)`` under ``import typing_extensions``; 2fde422 ``from
typing_extensions import NoExtraItems`` under another import from it. pluggy is installed
wherever pytest is."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

ALL = {"test_helper", "test_other"}
BELOW = "\n\ndef helper"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "util.py",
        """
        import pluggy
        from pluggy import HookspecMarker


        def helper():
            return 1


        def other():
            return 2
        """,
    )
    write(
        pytester,
        "test_util.py",
        """
        def test_helper():
            import util

            assert util.helper() == 1


        def test_other():
            import util

            assert util.other() == 2
        """,
    )
    assert run(pytester) == ALL
    return pytester


def _add(project: pytest.Pytester, statements: str) -> tuple[set[str], set[str]]:
    edit(project, "util.py", BELOW, f"\n{statements}\n{BELOW}")
    return ran_and_failed(project)


def test_an_attribute_the_library_binds_selects_no_test(project: pytest.Pytester) -> None:
    assert _add(project, "MARKERS = (pluggy.HookimplMarker,)") == (set(), set())


def test_a_name_imported_from_the_library_selects_no_test(project: pytest.Pytester) -> None:
    assert _add(project, "from pluggy import HookimplMarker") == (set(), set())


def test_an_attribute_the_library_lacks_selects_every_importer(project: pytest.Pytester) -> None:
    assert _add(project, "MARKERS = (pluggy.NoSuchMarker,)") == (ALL, ALL)


def test_a_name_the_library_lacks_selects_every_importer(project: pytest.Pytester) -> None:
    assert _add(project, "from pluggy import NoSuchMarker") == (ALL, ALL)


def test_the_library_name_rebound_selects_every_importer(project: pytest.Pytester) -> None:
    added = "pluggy = None\nMARKERS = (pluggy.HookimplMarker,)"
    assert _add(project, added) == (ALL, ALL)


def test_a_class_body_hiding_the_library_name_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    added = "class Holder:\n    pluggy = None\n    MARKERS = (pluggy.HookimplMarker,)"
    assert _add(project, added) == (ALL, ALL)


def test_a_project_module_named_like_a_library_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    # ``extlib`` is the project's: its names are no installed library's.
    write(pytester, "extlib.py", "NAME = 1\n")
    write(pytester, "util.py", "import extlib\n\n\ndef helper():\n    return 1\n")
    write(
        pytester,
        "test_util.py",
        "def test_helper():\n    import util\n\n    assert util.helper()\n",
    )
    assert run(pytester) == {"test_helper"}
    edit(pytester, "util.py", BELOW, f"\nVALUE = extlib.NOPE\n{BELOW}")
    assert ran_and_failed(pytester) == ({"test_helper"}, {"test_helper"})
