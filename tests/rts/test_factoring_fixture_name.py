"""The factoring plugin's autouse fixture leaves the closures of the tests it does nothing
for, so those tests no longer read its name. Guard: a conftest fixture that takes that
name later (autouse: it applies to every test below it) still selects the tests, which
then fail in setup."""

from __future__ import annotations

import pytest

from .helpers import run, write

pytest_plugins = ["pytester"]

_PLUGIN = ("-p", "lsp_server.factoring.plugin")


def test_an_autouse_fixture_taking_the_plugins_name_selects_the_tests(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "conftest.py", "import pytest\n")
    write(pytester, "test_a.py", "def test_a():\n    pass\n")
    assert run(pytester, *_PLUGIN) == {"test_a"}
    assert run(pytester, *_PLUGIN) == set()
    write(
        pytester,
        "conftest.py",
        """
        import pytest


        @pytest.fixture(autouse=True)
        def _reks_factoring():
            raise RuntimeError("the project's own fixture")
        """,
    )
    assert run(pytester, *_PLUGIN) == {"test_a"}
