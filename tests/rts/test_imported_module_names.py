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
            assert shell.edit("a") == "A"
            assert paths.here() == os.getcwd()


        def test_shell_binds_no_os():
            assert not hasattr(shell, "os")


        def test_shell_gives_no_os():
            try:
                from pkg.shell import os as found
            except ImportError:
                found = None
            assert found is None
        """,
    )
    assert run(pytester) == {"test_edit", "test_shell_binds_no_os", "test_shell_gives_no_os"}
    return pytester


def test_a_module_imported_by_name_elsewhere_is_no_read_of_a_new_binding(
    project: pytest.Pytester,
) -> None:
    # shell binds `os` now: `import os` in paths and in the test module still find the
    # module; the lookups of shell's attribute (by string, by a from import) see it.
    edit(project, "pkg/shell.py", "def edit", "import os\n\n\ndef edit")
    assert run(project) == {"test_shell_binds_no_os", "test_shell_gives_no_os"}
