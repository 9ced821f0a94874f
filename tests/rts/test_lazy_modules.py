"""``__lazy_modules__`` (PEP 810) makes the imports it names lazy from Python 3.15 on;
before, it is a plain global only code reading it by name sees, as ``__version__`` is, on
a real pytest session (python-humanize 8a47cb4 set it in the package ``__init__`` and three
modules: every test ran)."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def test_lazy_modules_before_3_15_select_its_readers_only(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "pkg/__init__.py",
        "from __future__ import annotations\n\nfrom pkg.core import double\n",
    )
    write(pytester, "pkg/core.py", "import math\n\n\ndef double(x):\n    return 2 * x\n")
    write(
        pytester,
        "test_pkg.py",
        """
        import pkg
        import pkg.core


        def test_double():
            assert pkg.double(2) == 4


        def test_lazy():
            assert getattr(pkg.core, "__lazy_modules__", {"math"}) == {"math"}
        """,
    )
    assert run(pytester) == {"test_double", "test_lazy"}
    edit(
        pytester,
        "pkg/__init__.py",
        "annotations\n",
        'annotations\n\n__lazy_modules__ = {"pkg.core"}\n',
    )
    edit(pytester, "pkg/core.py", "import math\n", '__lazy_modules__ = {"math"}\n\nimport math\n')
    every = {"test_double", "test_lazy"}
    assert run(pytester) == ({"test_lazy"} if sys.version_info < (3, 15) else every)
