"""``globals()[key]`` where ``key`` is made from a parameter checked against a constant set
of strings (``if name in {"A", "B"}: return globals()[f"_{name}"]``, or ``if name not in
{...}: raise`` first) reads one of the keys made from that set, none the builtins'
namespace: the module's namespace stays closed, and its global reads are its own. Before,
the lookup counted as handing on the builtins' namespace, the module's global reads counted
as reads of any module, and binding ``os`` in another module selected every test whose code
read ``os`` there (click e1fd5946: deprecated names in ``utils.__getattr__``, 1,965 tests,
testmon 477). A set that is not a display, a key made from another name, a path that skips
the check, a rebound parameter, a key that may be ``__builtins__`` or one in a default value
(evaluated before the body's check) keep it open. Real
pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_GUARDED = """
import os


def _Parser():
    return "parser"


def home():
    return os.sep


def __getattr__(name):
    if name in {"Parser", "Lexer"}:
        return globals()[f"_{name}"]
    raise AttributeError(name)
"""

_SHELLS = """
def count():
    return 1
"""

_TESTS = """
import old
import shells


def test_old():
    assert old.Parser() == "parser"
    assert old.home() == "/"
    assert shells.count() == 1
"""

_CHECK = """    if name in {"Parser", "Lexer"}:
        return globals()[f"_{name}"]
    raise AttributeError(name)
"""


def _selected_after_binding_os_elsewhere(pytester: pytest.Pytester, old_module: str) -> set[str]:
    write(pytester, "old.py", old_module)
    write(pytester, "shells.py", _SHELLS)
    write(pytester, "test_old.py", _TESTS)
    assert run(pytester) == {"test_old"}
    assert run(pytester) == set()  # it passed: a failed test would run again
    edit(pytester, "shells.py", "def count", "import os\n\n\ndef count")
    return run(pytester)


def test_a_key_from_a_checked_parameter_keeps_the_namespace_closed(
    pytester: pytest.Pytester,
) -> None:
    assert _selected_after_binding_os_elsewhere(pytester, _GUARDED) == set()


def test_the_check_may_come_first_and_leave(pytester: pytest.Pytester) -> None:
    negative = (
        '    if name not in ("Parser", "Lexer"):\n'
        "        raise AttributeError(name)\n"
        '    return globals()["_" + name]\n'
    )
    assert (
        _selected_after_binding_os_elsewhere(pytester, _GUARDED.replace(_CHECK, negative)) == set()
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param('{"Parser", "Lexer"}', "NAMES", id="a set that is a module global"),
        pytest.param('f"_{name}"', 'f"{PREFIX}{name}"', id="a key made from another name"),
        pytest.param(
            "        return globals()",
            "        pass\n    if name:\n        return globals()",
            id="a path that skips the check",
        ),
        pytest.param(
            "        return globals()",
            "        name = name.strip()\n        return globals()",
            id="a rebound parameter",
        ),
        pytest.param('"Lexer"}', '"_builtins__"}', id="a key that may be __builtins__"),
        pytest.param(
            "def home():",
            'name = "Parser"\n\n\ndef lookup(name, found=globals()[f"_{name}"]):\n'
            '    if name not in ("Parser",):\n        raise AttributeError(name)\n'
            "    return found\n\n\ndef home():",
            id="a key in a default value, checked in the body",
        ),
    ],
)
def test_an_unproven_key_opens_the_namespace(pytester: pytest.Pytester, old: str, new: str) -> None:
    module = _GUARDED.replace(old, new) + '\n\nNAMES = {"Parser"}\nPREFIX = "_"\n'
    assert _selected_after_binding_os_elsewhere(pytester, module) == {"test_old"}
