"""A name that code run at import (or collection) reads only as a global of its module is
read there alone, as for code a test runs: only a binding in that module changes what it
finds. Counted as read anywhere, any module binding the name selected every test that
imported it: toolz 0c2b43a926 added ``import sys`` to a test file and all 17 of its tests
ran (testmon: the one that changed), since ``toolz/__init__`` ran code reading ``sys``
(versioneer's ``get_versions()``) at import. (They still run there: ``functoolz`` reads
``sys`` at import too and spells ``self.__dict__`` in its code, so its globals count as read
anywhere; what its comments and docstrings say no longer counts.)"""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    # A call at import: what ran then is in the importers' import footprint.
    write(pytester, "util.py", "from _impl import kind, separator\n\nKIND = kind()\n")
    write(
        pytester,
        "_impl.py",
        """
        import os
        import sys

        LABEL = "plain"


        def kind():
            return (sys.platform, LABEL)


        def separator():
            return os.sep
        """,
    )
    write(
        pytester,
        "test_util.py",
        """
        import util


        def test_separator():
            assert util.separator()


        def test_module():
            assert util.__name__ == "util"
        """,
    )
    write(
        pytester,
        "test_kind.py",
        """
        import util


        def test_kind():
            assert util.KIND[1] == "plain"
        """,
    )
    assert run(pytester) == {"test_separator", "test_module", "test_kind"}
    return pytester


def test_an_import_added_to_a_test_file_selects_nothing(project: pytest.Pytester) -> None:
    edit(project, "test_util.py", "import util\n", "import os\nimport sys\nimport util\n")
    assert run(project) == set()


def test_a_global_read_at_import_selects_the_importers_when_rebound(
    project: pytest.Pytester,
) -> None:
    edit(project, "_impl.py", 'LABEL = "plain"', 'LABEL = "fancy"')
    assert run(project) == {"test_separator", "test_module", "test_kind"}


def test_words_in_a_docstring_or_comment_leave_the_namespace_closed(
    project: pytest.Pytester,
) -> None:
    # toolz's functoolz says ``__dict__`` and "builtins" only in comments and docstrings:
    # text that runs no code cannot fill a namespace, so its globals stay its own.
    edit(
        project,
        "_impl.py",
        'LABEL = "plain"',
        '"""Reads nothing through __dict__ or globals()."""\n'
        "# like builtins, a comment binds nothing\n"
        'LABEL = "plain"',
    )
    assert run(project) == {"test_separator", "test_module", "test_kind"}
    edit(project, "test_util.py", "import util\n", "import os\nimport sys\nimport util\n")
    assert run(project) == set()


def test_a_namespace_opened_by_code_still_counts_everywhere(project: pytest.Pytester) -> None:
    edit(project, "_impl.py", 'LABEL = "plain"', 'LABEL = "plain"\nglobals()["EXTRA"] = 1')
    assert run(project) == {"test_separator", "test_module", "test_kind"}
    edit(project, "test_util.py", "import util\n", "import os\nimport sys\nimport util\n")
    assert run(project) == {"test_separator", "test_module"}
