"""A package's metadata dunders (``__title__``, ``__build__``, ``__description__``,
``__url__``... beside ``__version__`` and ``__author__``) mean nothing to Python: only code
spelling them reads them. A release bump of them selects their readers alone
(diskcache's "Bump version" commit changes ``__version__`` and ``__build__``: its module
part changed and every importer reran, 179 of 243 tests)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "pkg/__init__.py",
        """
        from pkg.core import area

        __title__ = "pkg"
        __description__ = "Areas."
        __url__ = "https://example.invalid/pkg"
        __version__ = "5.3.0"
        __build__ = 0x050300
        """,
    )
    write(pytester, "pkg/core.py", "def area(w, h):\n    return w * h\n")
    write(
        pytester,
        "test_pkg.py",
        """
        import pkg


        def test_area():
            assert pkg.area(2, 3) == 6


        def test_build():
            assert pkg.__build__ >= 0x050300
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_area", "test_build"}
    return pytester


def test_a_release_bump_selects_only_the_readers(project: pytest.Pytester) -> None:
    edit(project, "pkg/__init__.py", '"5.3.0"', '"5.4.0"')
    edit(project, "pkg/__init__.py", "0x050300", "0x050400")
    edit(project, "pkg/__init__.py", '"Areas."', '"Areas of shapes."')
    assert run(project) == {"test_build"}
