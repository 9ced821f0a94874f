"""Each name a standard-library import binds is a unit of its own: what it takes from which
module, not the whole statement. tinydb 3517ddc0b6 added ``NoReturn`` and ``overload`` to
``from typing import (Callable, Dict, ...)``: every name of the statement changed, and the
annotations of every method read one of them (205 of 205 tests; testmon 145)."""

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
        import os, sys
        from typing import (
            List,
            Optional,
        )


        def helper(x: Optional[int] = None):
            return 1


        def listing() -> List[int]:
            return [sys.maxsize > 0]


        def separator():
            return os.sep
        """,
    )
    write(
        pytester,
        "test_util.py",
        """
        def test_helper():
            import util

            assert util.helper() == 1


        def test_listing():
            import util

            assert util.listing() == [True]


        def test_separator():
            import util

            assert util.separator()
        """,
    )
    assert run(pytester) == {"test_helper", "test_listing", "test_separator"}
    return pytester


def test_a_name_added_to_an_import_selects_nothing(project: pytest.Pytester) -> None:
    edit(project, "util.py", "    Optional,\n", "    Optional,\n    Dict,\n")
    assert run(project) == set()


def test_a_module_added_to_an_import_selects_nothing(project: pytest.Pytester) -> None:
    edit(project, "util.py", "import os, sys", "import os, re, sys")
    assert run(project) == set()


def test_a_name_taken_from_elsewhere_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "util.py", "    Optional,\n", "    Union as Optional,\n")
    assert run(project) == {"test_helper"}


def test_a_module_renamed_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "util.py", "import os, sys", "import os, platform as sys")
    assert run(project) == {"test_listing"}


def test_a_name_that_does_not_exist_selects_every_importer(project: pytest.Pytester) -> None:
    edit(project, "util.py", "    Optional,\n", "    Optional,\n    Missing,\n")
    assert run(project) == {"test_helper", "test_listing", "test_separator"}
