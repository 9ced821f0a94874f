"""A package gathering its ``__all__`` from its modules' listings through a helper of its
own (``__all__ = concat(sys.modules["pkg." + m].__all__ for m in MODULES)``, the helper
only copying what it iterates): a module's edited listing is seen by the tests reading a
name listed before or now but not both and by the tests reading the package's ``__all__``,
not by every importer of the package. Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

INIT = """
import sys

from .seqs import *
from .b import *

MODULES = ("seqs", "b")
__all__ = concat(sys.modules["pkg." + m].__all__ for m in MODULES)
"""

SEQS = """
from itertools import chain

__all__ = ["concat"]


def concat(seqs):
    return list(flat(seqs))


flat = chain.from_iterable
"""

B = """
from functools import reduce

__all__ = ["h"]


def h():
    return 2
"""

TEST_H = "def test_h():\n    import pkg\n\n    assert pkg.h() == 2\n"
TEST_CONCAT = "def test_concat():\n    import pkg\n\n    assert pkg.concat([[1]]) == [1]\n"
TEST_REDUCE = "def test_reduce():\n    import pkg\n\n    assert not hasattr(pkg, 'reduce')\n"
TEST_LISTING = "def test_listing():\n    import pkg\n\n    assert len(pkg.__all__) == 2\n"
EVERY = {"test_h", "test_concat", "test_reduce", "test_listing"}


def _project(pytester: pytest.Pytester, seqs: str) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", INIT)
    write(pytester, "pkg/seqs.py", seqs)
    write(pytester, "pkg/b.py", B)
    write(pytester, "test_h.py", TEST_H)
    write(pytester, "test_concat.py", TEST_CONCAT)
    write(pytester, "test_reduce.py", TEST_REDUCE)
    write(pytester, "test_listing.py", TEST_LISTING)
    assert run(pytester) == EVERY
    return pytester


def test_a_listing_gathered_by_a_copying_helper_selects_its_readers(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, SEQS)
    edit(project, "pkg/b.py", '__all__ = ["h"]', '__all__ = ["reduce", "h"]')
    assert run(project) == {"test_reduce", "test_listing"}


# The helper looks at what it gathers: the new listing makes the package's import fail.
CHECKING = SEQS.replace(
    "return list(flat(seqs))", "out = list(flat(seqs))\n    assert len(out) < 3\n    return out"
)


def test_a_listing_gathered_by_a_checking_helper_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, CHECKING)
    edit(project, "pkg/b.py", '__all__ = ["h"]', '__all__ = ["reduce", "h"]')
    assert run(project) == EVERY


def test_a_gathered_listing_no_longer_known_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, SEQS)
    edit(project, "pkg/b.py", '__all__ = ["h"]', '__all__ = ["h"] + ["reduce"]')
    assert run(project) == EVERY


TEST_STAR = "from pkg import *\n\n\ndef test_star():\n    assert h() == 2\n"


def test_a_star_importer_of_the_gathering_package_sees_a_new_listed_name(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, SEQS)
    write(project, "test_star.py", TEST_STAR)
    assert run(project) == {"test_star"}
    edit(project, "pkg/b.py", '__all__ = ["h"]', '__all__ = ["reduce", "h"]')
    assert run(project) == {"test_reduce", "test_listing", "test_star"}


def test_a_gathered_module_dropping_its_listing_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    # ``sys.modules["pkg.b"].__all__`` now raises: the package's import fails.
    project = _project(pytester, SEQS)
    edit(project, "pkg/b.py", '__all__ = ["h"]', "")
    assert run(project) == EVERY


def test_a_module_star_importing_the_gathering_package_passes_a_new_name_on(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, SEQS)
    write(project, "reexport.py", "from pkg import *\n")
    write(
        project,
        "test_through.py",
        "from reexport import *\n\n\ndef test_through():\n    assert h() == 2\n",
    )
    assert run(project) == {"test_through"}
    edit(project, "pkg/b.py", '__all__ = ["h"]', '__all__ = ["reduce", "h"]')
    assert "test_through" in run(project)
