"""A name removed from a module selects every test whose modules took it with ``from m
import name`` (that import fails now), but only while some module still takes it: removed
together with the last such import (sqlparse ``519e41698a``: ``utils._DelimiterOccurrence``
and ``keywords``' import of it), it selects the tests that read it, not every importer. On
real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

CORE = """
from pkg.utils import Pair


def make():
    return Pair(1, 2)
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "from pkg import core, utils\n")
    write(
        pytester,
        "pkg/utils.py",
        """
        from collections import namedtuple

        Pair = namedtuple("Pair", "a b")


        def other():
            return 1
        """,
    )
    write(pytester, "pkg/core.py", CORE)
    write(
        pytester,
        "test_pkg.py",
        """
        from pkg import core, utils


        def test_make():
            assert core.make()[0] == 1


        def test_other():
            assert utils.other() == 1
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_make", "test_other"}
    return pytester


def test_a_name_removed_with_its_last_import_selects_its_readers(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/utils.py", 'Pair = namedtuple("Pair", "a b")', "")
    write(project, "pkg/core.py", "def make():\n    return (1, 2)\n")
    assert run(project) == {"test_make"}


def test_a_name_removed_while_another_module_takes_it_selects_its_importers(
    project: pytest.Pytester,
) -> None:
    write(project, "pkg/more.py", "def late():\n    from pkg.utils import Pair\n    return 1\n")
    write(
        project,
        "test_more.py",
        "from pkg import more\n\n\ndef test_late():\n    assert more.late()\n",
    )
    assert run(project, flag="--reks-all") == {"test_make", "test_other", "test_late"}
    edit(project, "pkg/utils.py", 'Pair = namedtuple("Pair", "a b")', "")
    write(project, "pkg/core.py", "def make():\n    return (1, 2)\n")
    assert run(project) == {"test_make", "test_late"}
