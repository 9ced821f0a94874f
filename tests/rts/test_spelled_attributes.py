"""A name a module reads at import is its own global unless the module also spells it
as an attribute (``x.name``): then a binding of it anywhere may be what it finds, and a
new one in any module selects its tests. Only code spells attributes: a comment whose
sentence ends with a period above a line starting with that name spells none (click's
``_termui_impl.py``: "... to work around this." above ``os.utime(...)`` made every test
read ``os`` anywhere, and ``import os`` added to ``termui.py`` in e1fd5946 reran 1,605
tests). Real pytest sessions on temporary projects."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """``impl`` reads its ``os`` at import, and in a function below a comment ending in a
    period; ``other`` binds no ``os`` yet."""
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/other.py", "def helper():\n    return 1\n")
    write(
        pytester,
        "pkg/impl.py",
        """
        import os

        from pkg import other

        if os.name == "nt":
            SEP = "\\\\"
        else:
            SEP = "/"


        def touch(name):
            # Set the time in the past to work around this.
            os.utime(name)
        """,
    )
    write(
        pytester,
        "test_impl.py",
        """
        import pkg.impl
        import pkg.other


        def test_sep():
            assert pkg.impl.SEP in "/\\\\"


        def test_helper():
            assert pkg.other.helper() == 1
        """,
    )
    assert run(pytester) == {"test_sep", "test_helper"}
    return pytester


def test_a_global_spelled_after_a_comment_period_is_still_the_modules_own(
    project: pytest.Pytester,
) -> None:
    """``os`` bound in ``other`` is not what ``impl`` reads: no test runs."""
    edit(project, "pkg/other.py", "def helper", "import os\n\n\ndef helper")
    assert run(project) == set()


def test_an_attribute_spelled_across_lines_is_read_anywhere(
    project: pytest.Pytester,
) -> None:
    """Guard: ``impl`` reads ``other.os`` at import, the dot and the name on two lines
    of a parenthesized expression: ``os`` bound in ``other`` changes what it finds."""
    found = "try:\n    FOUND = (other.\n        os).sep\nexcept AttributeError:\n    FOUND = None\n"
    edit(project, "pkg/impl.py", "\n\ndef touch", "\n" + found + "\n\ndef touch")
    write(
        project,
        "test_found.py",
        """
        import pkg.impl
        import pkg.other


        def test_found():
            assert pkg.impl.FOUND is None
        """,
    )
    assert "test_found" in run(project)
    edit(project, "pkg/other.py", "def helper", "import os\n\n\ndef helper")
    assert "test_found" in run(project)
    assert project.runpytest("-p", "no:cacheprovider", "test_found.py").ret != 0
