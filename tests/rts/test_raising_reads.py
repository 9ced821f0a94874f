"""A top-level binding that may raise at import raises or not by what the names it reads
are bound to: when one of those bindings changes, every importer of the module must run
(``Y = os.sep`` changed to ``None`` makes ``X = Y + "b"`` raise), not only the tests
reading the binding."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def test_a_changed_name_a_raising_binding_reads_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "lib.py",
        """
        import os

        Y = os.sep
        X = Y + "b"


        def one():
            return 1
        """,
    )
    write(pytester, "test_one.py", "import lib\n\n\ndef test_one():\n    assert lib.one()\n")
    write(pytester, "test_x.py", "import lib\n\n\ndef test_x():\n    assert lib.X\n")
    assert run(pytester) == {"test_one", "test_x"}
    edit(pytester, "lib.py", "os.sep", "None")
    failed = pytester.inline_run("--reks").getfailedcollections()
    assert sorted(r.nodeid for r in failed) == ["test_one.py", "test_x.py"]
