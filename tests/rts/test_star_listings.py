"""A package that star-imports its modules (``from .b import *`` in ``__init__``) binds
what each ``__all__`` lists. A changed listing is seen by the tests reading a name whose
listing changed, by the tests reading ``__all__`` itself, and by every importer when the
star import may fail (a listed name the module does not bind); a test that imports the
package and reads other names sees nothing (funcy: every ``__all__`` edit selected all
its tests). Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

B = """
__all__ = ["h"]


def h():
    return 2


def k():
    return 3
"""

# Imported in the tests: a failing import fails them (at collection, none would run).
TEST_F = "def test_f():\n    from pkg.a import f\n\n    assert f() == 1\n"
TEST_H = "def test_h():\n    import pkg\n\n    assert pkg.h() == 2\n"
TEST_K = "def test_k():\n    import pkg\n\n    assert getattr(pkg, 'k', None) is None\n"
TEST_LISTING = "def test_listing():\n    import pkg.b\n\n    assert pkg.b.__all__ == ['h']\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "from .a import *\nfrom .b import *\n")
    write(pytester, "pkg/a.py", '__all__ = ["f"]\n\n\ndef f():\n    return 1\n')
    write(pytester, "pkg/b.py", B)
    write(pytester, "test_a.py", TEST_F)
    write(pytester, "test_h.py", TEST_H)
    write(pytester, "test_k.py", TEST_K)
    write(pytester, "test_listing.py", TEST_LISTING)
    assert run(pytester) == {"test_f", "test_h", "test_k", "test_listing"}
    return pytester


def test_a_newly_listed_name_selects_its_readers_only(project: pytest.Pytester) -> None:
    edit(project, "pkg/b.py", '__all__ = ["h"]', '__all__ = ["h", "k"]')
    assert run(project) == {"test_k", "test_listing"}


def test_an_unlisted_name_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "pkg/b.py", '__all__ = ["h"]', "__all__ = []")
    assert run(project) == {"test_h", "test_listing"}


def test_a_listed_name_not_bound_selects_every_importer(project: pytest.Pytester) -> None:
    edit(project, "pkg/b.py", '__all__ = ["h"]', '__all__ = ["h", "missing"]')
    assert run(project) == {"test_f", "test_h", "test_k", "test_listing"}


def test_a_computed_listing_selects_every_importer(project: pytest.Pytester) -> None:
    edit(project, "pkg/b.py", '__all__ = ["h"]', '__all__ = ["h"] + []')
    assert run(project) == {"test_f", "test_h", "test_k", "test_listing"}


def test_a_dropped_listing_selects_every_importer(project: pytest.Pytester) -> None:
    # Without ``__all__`` the star import takes every public name: ``k`` too.
    edit(project, "pkg/b.py", '__all__ = ["h"]', "")
    assert run(project) == {"test_f", "test_h", "test_k", "test_listing"}


OTHER = "def test_other():\n    import pkg.b\n\n    assert pkg.b.k() == 3\n"


@pytest.mark.parametrize(
    ("listing", "seeing"),
    [
        ("__all__ = []", {"test_h", "test_listing"}),
        ('__all__ = ["h", "k"]', {"test_k", "test_listing"}),
        ('__all__ = ["h", "x"]', {"test_f", "test_h", "test_k", "test_listing"}),
    ],
)
def test_a_listing_changed_in_a_partial_run_is_seen_later(
    project: pytest.Pytester, listing: str, seeing: set[str]
) -> None:
    write(project, "test_other.py", OTHER)
    assert run(project, "test_other.py") == {"test_other"}
    edit(project, "pkg/b.py", '__all__ = ["h"]', listing)
    edit(project, "pkg/b.py", "return 3", "return 1 + 2")  # test_other runs again
    # The session syncs pkg/b.py, and the selection after it compares with the new
    # listing: the tests that see the change (as a whole run would select them: the last
    # listing makes every star import fail) are marked stale then. The others were proven
    # unaffected by the partial run's selection (``store.stale_marks``).
    assert run(project, "test_other.py") == {"test_other"}
    assert run(project) >= seeing
