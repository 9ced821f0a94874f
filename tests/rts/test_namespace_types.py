"""A module that only takes the type of a namespace (``type(object.__dict__)``, a table
keyed by the mapping-proxy type) fills no namespace: it stays closed, so its ``__all__``
stays known and a new listed name selects its readers only, not every importer of the
package star-importing it (funcy's ``colls`` did this, and each edit of its ``__all__``
selected every test). ``type`` rebound in the module, or the namespace handed to any
other call, still opens it. Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

B = """
__all__ = ["h"]

FACTORY = {type(object.__dict__): dict, type({}.keys()): list}


def h():
    return 2


def k():
    return 3
"""

TEST_F = "def test_f():\n    from pkg.a import f\n\n    assert f() == 1\n"
TEST_H = "def test_h():\n    import pkg\n\n    assert pkg.h() == 2\n"
TEST_K = "def test_k():\n    import pkg\n\n    assert getattr(pkg, 'k', None) is None\n"
EVERY = {"test_f", "test_h", "test_k"}


def _project(pytester: pytest.Pytester, b: str) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "from .a import *\nfrom .b import *\n")
    write(pytester, "pkg/a.py", '__all__ = ["f"]\n\n\ndef f():\n    return 1\n')
    write(pytester, "pkg/b.py", b)
    write(pytester, "test_a.py", TEST_F)
    write(pytester, "test_h.py", TEST_H)
    write(pytester, "test_k.py", TEST_K)
    assert run(pytester) == EVERY
    return pytester


def test_the_type_of_a_namespace_keeps_the_listing_known(pytester: pytest.Pytester) -> None:
    project = _project(pytester, B)
    edit(project, "pkg/b.py", '__all__ = ["h"]', '__all__ = ["h", "k"]')
    assert run(project) == {"test_k"}


@pytest.mark.parametrize(
    "opening",
    [
        pytest.param("type = lambda ns: ns\n", id="type-rebound-in-the-module"),
        pytest.param("def f(type):\n    return type(object.__dict__)\n", id="type-a-parameter"),
        pytest.param("NS = dict(object.__dict__)\n", id="namespace-handed-to-another-call"),
        pytest.param(
            "def make(name):\n    return type(name, (), object.__dict__)\n",
            id="type-making-a-class",
        ),
    ],
)
def test_a_namespace_handed_on_still_selects_every_importer(
    pytester: pytest.Pytester, opening: str
) -> None:
    project = _project(pytester, B + "\n\n" + opening)
    edit(project, "pkg/b.py", '__all__ = ["h"]', '__all__ = ["h", "k"]')
    assert run(project) == EVERY
