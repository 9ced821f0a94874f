"""``import x`` looks the module ``x`` up among the modules (``sys.modules``, then the
finders), never in a namespace: a name newly bound in a project module is no read of the
code importing a module so named, on real pytest sessions. What the statement binds, and
names read as attributes (``from m import x`` included) or by string, still are."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/shell.py", "def edit(text):\n    return text.upper()\n")
    write(
        pytester,
        "pkg/paths.py",
        """
        def here():
            import os

            return os.getcwd()
        """,
    )
    write(
        pytester,
        "test_shell.py",
        """
        import os

        from pkg import paths, shell


        def test_edit():
            # Out of the assert: its rewriting spells each name it shows as a string.
            expected = os.getcwd()
            assert shell.edit("a") == "A"
            assert paths.here() == expected


        def test_shell_gives_no_os():
            try:
                from pkg.shell import os as found
            except ImportError:
                found = None
            assert found is None
        """,
    )
    write(
        pytester,
        "test_shell_os.py",
        """
        from pkg import shell


        def test_shell_os_is_not_the_module():
            import os  # and the attribute so named, read by the same code

            try:
                found = shell.os
            except AttributeError:
                found = None
            differs = found is not os  # out of the assert, which spells names as strings
            assert differs
        """,
    )
    assert run(pytester) == {
        "test_edit",
        "test_shell_os_is_not_the_module",
        "test_shell_gives_no_os",
    }
    return pytester


def test_a_module_imported_by_name_elsewhere_is_no_read_of_a_new_binding(
    project: pytest.Pytester,
) -> None:
    # shell binds `os` now: `import os` in paths and in the test module still find the
    # module; the lookups of shell's attribute (beside an `import os`, by a from import)
    # see it.
    edit(project, "pkg/shell.py", "def edit", "import os\n\n\ndef edit")
    assert run(project) == {"test_shell_os_is_not_the_module", "test_shell_gives_no_os"}
