"""``hasattr(builtins, node.id)`` (typeguard's ``TransformMemo.name_matches``) reads the
builtins module only: a new or changed binding of a project module does not change what it
finds, so it selects no test that only ran it (``rts.builtins_lookups``). The same lookup on
a project module, the same call site handed a project module too, and a project module
storing into ``builtins`` still select it."""

from __future__ import annotations

import builtins
import sys
from collections.abc import Iterator

import pytest

from .helpers import edit, recording_plugin_only, run, write

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="the CALL event (3.12+) hands over the object"
)

NAMES = """
import builtins


class Node:
    def __init__(self, id):
        self.id = id


def found(where, name):
    return hasattr(where, Node(name).id)


def qualify(name):
    return "builtins." + name if found(builtins, name) else name
"""

SETTINGS = "LIMIT = 3\n\n\ndef limit():\n    return LIMIT\n"

# The test of ``test_names.py``: what it asks, and what it finds before the change. The
# names are computed: a string constant spelling one is a read of that name already.
ASKS = {
    "builtins": ("names.qualify('len')", "'builtins.len'"),
    "a project module": ("names.found(settings, 'limit'.upper())", "True"),
    "builtins then a project module": (
        "(names.qualify('len'), names.found(settings, 'limit'.upper()))",
        "('builtins.len', True)",
    ),
    "a name a project module stores into builtins": (
        "names.qualify('SHOUT'.lower())",
        "'builtins.shout'",
    ),
}


@pytest.fixture(autouse=True)
def _no_shout() -> Iterator[None]:
    """The in-process runs import ``plugin``, which stores into this process's builtins."""
    yield
    vars(builtins).pop("shout", None)


def _project(pytester: pytest.Pytester, asks: str) -> None:
    call, expected = ASKS[asks]
    write(pytester, "names.py", NAMES)
    write(pytester, "settings.py", SETTINGS)
    write(pytester, "plugin.py", "import builtins\n\nbuiltins.shout = str.upper\n")
    write(
        pytester,
        "test_names.py",
        "import names\nimport plugin\nimport settings\n\n\n"
        f"def test_asks():\n    assert {call} == {expected}\n\n\n"
        "def test_limit():\n    assert settings.limit() == 3\n",
    )


def test_a_lookup_on_builtins_depends_on_no_project_binding(pytester: pytest.Pytester) -> None:
    """Precision: a new constant and a changed one that only ``test_limit`` reads."""
    _project(pytester, "builtins")
    assert run(pytester) == {"test_asks", "test_limit"}
    edit(pytester, "settings.py", "LIMIT = 3\n", "LIMIT = 3\nEXTRA = 1\n")
    assert run(pytester) == set()
    edit(pytester, "settings.py", "LIMIT = 3", "LIMIT = 4")
    assert run(pytester) == {"test_limit"}


@pytest.mark.parametrize(
    ("asks", "change"),
    [
        ("a project module", ("LIMIT = 3", "LIMIT_ = 3")),
        ("builtins then a project module", ("LIMIT = 3", "LIMIT_ = 3")),
        ("a name a project module stores into builtins", ("builtins.shout", "builtins.yell")),
    ],
)
def test_a_lookup_a_project_binding_can_change_is_still_selected(
    pytester: pytest.Pytester, asks: str, change: tuple[str, str]
) -> None:
    """Guards: the lookup on a project module (also from the site that looked in builtins
    first), and a name a project module's import stores into builtins: renaming the
    binding selects the test, which fails."""
    _project(pytester, asks)
    assert run(pytester) == {"test_asks", "test_limit"}
    path = "plugin.py" if "builtins." in change[0] else "settings.py"
    edit(pytester, path, *change)
    if path == "settings.py":
        edit(pytester, "settings.py", "return LIMIT", "return LIMIT_")
    # Another process: this one's builtins keep what the first runs' imports stored.
    with recording_plugin_only():
        result = pytester.runpytest_subprocess("--reks")
    result.stdout.fnmatch_lines(["FAILED test_names.py::test_asks*"])
