"""A module ``__getattr__`` (PEP 562) whose body answers names by ``if name == "CONST":``
branches: a test depends on the branches for the names it looked up, not on every branch
(a conftest probing one absent name made every test depend on the whole function, so an
edit of the branch for a deprecated name ran the whole suite)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_INIT = """
import os


def __getattr__(name):
    prefix = os.sep
    if name == "alpha":
        return prefix + "alpha"
    if name == "beta":
        return prefix + "beta"
    raise AttributeError(name)
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", _INIT)
    write(
        pytester,
        "conftest.py",
        """
        import pkg

        PROBED = hasattr(pkg, "probe")
        """,
    )
    write(
        pytester,
        "test_pkg.py",
        """
        import os

        import pkg


        def test_alpha():
            assert pkg.alpha == os.sep + "alpha"


        def test_beta():
            assert pkg.beta == os.sep + "beta"


        def test_missing():
            assert not hasattr(pkg, "gamma")


        def test_plain():
            assert pkg.__name__ == "pkg"
        """,
    )
    assert len(run(pytester, flag="--reks-all")) == 4
    return pytester


def test_editing_one_constant_branch_selects_the_tests_that_asked_its_name(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/__init__.py", 'return prefix + "alpha"', 'return prefix + "alpha" + ""')
    assert run(project) == {"test_alpha"}
