"""Code that only reads a namespace (``vars(m).items()``, ``globals()[name]``,
``builtins.len``, ``self.__dict__`` of a plain class's instance) fills none: the module's
globals stay its own, and a binding added to another module selects nothing through them.
Code that hands a namespace on, or fills one that may be a module's, still opens it."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_ADDED_IMPORTS = ("import util\n", "import os\nimport sys\nimport util\n")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    # ``kind`` reads ``sys`` at import (util calls it), and every test imports util: were
    # ``_impl``'s globals read anywhere, test_util's new ``import sys`` would select them.
    write(pytester, "util.py", "from _impl import kind, separator\n\nKIND = kind()\n")
    write(
        pytester,
        "_impl.py",
        """
        import os
        import sys

        LABEL = "plain"


        def kind():
            return (sys.platform, LABEL)


        def separator():
            return os.sep
        """,
    )
    write(
        pytester,
        "test_util.py",
        """
        import util


        def test_separator():
            assert util.separator()


        def test_module():
            assert util.__name__ == "util"
        """,
    )
    write(
        pytester,
        "test_kind.py",
        """
        import util


        def test_kind():
            assert util.KIND[1] == "plain"
        """,
    )
    assert run(pytester) == {"test_separator", "test_module", "test_kind"}
    return pytester


_READS_ONLY = """
import builtins

WIDTH = builtins.len(LABEL)
kind.__doc__ = "Says globals() and builtins, as prose."


def exported():
    return sorted(k for k in vars(os).keys() if k in globals() and globals().get("LABEL"))


class Box(object):
    def fields(self):
        return {k: v for k, v in self.__dict__.items() if k not in vars(type(self))}

    def fill(self, **values):
        self.__dict__.update(values)


class Crate(Box):
    @property
    def state(self):
        self.__dict__["seen"] = True
        return self.__dict__
"""


def test_a_namespace_only_read_or_an_instance_filled_leaves_globals_own(
    project: pytest.Pytester,
) -> None:
    edit(project, "_impl.py", "    return os.sep\n", "    return os.sep\n" + _READS_ONLY)
    assert run(project) == {"test_separator", "test_module", "test_kind"}
    edit(project, "test_util.py", *_ADDED_IMPORTS)
    assert run(project) == set()


# validators' ``ValidationError``: an exception's instance is never a module (no builtin
# exception class shares a layout with ``types.ModuleType``).
_EXCEPTION_FILLED = """


class Failure(ValueError):
    def __init__(self, **values):
        self.__dict__.update(values)


class Refusal(Failure):
    def fields(self):
        return dict(self.__dict__.items())
"""


def test_an_exception_instance_filled_leaves_globals_own(project: pytest.Pytester) -> None:
    edit(project, "_impl.py", "    return os.sep\n", "    return os.sep\n" + _EXCEPTION_FILLED)
    # ``kind`` runs at import: every test runs again and is recorded with the new code.
    edit(project, "_impl.py", "(sys.platform, LABEL)", "(sys.platform, str(LABEL))")
    assert run(project) == {"test_separator", "test_module", "test_kind"}
    edit(project, "test_util.py", *_ADDED_IMPORTS)
    assert run(project) == set()


@pytest.mark.parametrize(
    "filling",
    [
        # the receiver may be any module
        "def fill(target, values):\n    target.__dict__.update(values)\n",
        # the namespace is handed on: whoever holds it may fill it
        "NAMES = vars()\n",
        # a value by a computed key may be the builtins' namespace
        "def fill(key):\n    globals()[key].update(EXTRA=1)\n",
        "import builtins\n\nbuiltins.EXTRA = 1\n",
        # a module's class: its instance may be this module
        "import types\n\n\nclass Lazy(types.ModuleType):\n"
        "    def fill(self, **values):\n        self.__dict__.update(values)\n",
        # not called on an instance
        "class Box:\n    @staticmethod\n    def fill(self, **values):\n"
        "        self.__dict__.update(values)\n",
        # an exception's name bound to a module's class
        "import types\n\nValueError = types.ModuleType\n\n\nclass Failure(ValueError):\n"
        "    def fill(self, **values):\n        self.__dict__.update(values)\n",
    ],
    ids=[
        "parameter",
        "stored",
        "computed-key",
        "builtins-attribute",
        "module-class",
        "staticmethod",
        "rebound-exception",
    ],
)
def test_a_namespace_handed_on_or_maybe_a_module_still_opens(
    project: pytest.Pytester, filling: str
) -> None:
    edit(project, "_impl.py", "    return os.sep\n", "    return os.sep\n\n\n" + filling)
    # ``kind`` runs at import: every test runs again and is recorded with the new code.
    edit(project, "_impl.py", "(sys.platform, LABEL)", "(sys.platform, str(LABEL))")
    assert run(project) == {"test_separator", "test_module", "test_kind"}
    edit(project, "test_util.py", *_ADDED_IMPORTS)
    assert run(project) == {"test_separator", "test_module"}


# tenacity's ``BaseRetrying(ABC)`` fills ``self.__dict__`` in ``__setstate__``: ``abc.ABC``
# and ``ABCMeta`` make instances as ``object`` and ``type`` do, never modules.
_ABC_FILLED = {
    "from-import": "from abc import ABC\n\n\nclass Retrying(ABC):\n",
    "module-attribute": "import abc\n\n\nclass Retrying(abc.ABC):\n",
    "metaclass": "from abc import ABCMeta\n\n\nclass Retrying(metaclass=ABCMeta):\n",
}
_SETSTATE = "    def __setstate__(self, state):\n        self.__dict__.update(state)\n"


@pytest.mark.parametrize("header", _ABC_FILLED.values(), ids=_ABC_FILLED.keys())
def test_an_abc_instance_filled_leaves_globals_own(project: pytest.Pytester, header: str) -> None:
    edit(project, "_impl.py", "    return os.sep\n", "    return os.sep\n\n\n" + header + _SETSTATE)
    # ``kind`` runs at import: every test runs again and is recorded with the new code.
    edit(project, "_impl.py", "(sys.platform, LABEL)", "(sys.platform, str(LABEL))")
    assert run(project) == {"test_separator", "test_module", "test_kind"}
    edit(project, "test_util.py", *_ADDED_IMPORTS)
    assert run(project) == set()


_ABC_LOOKALIKES = {
    # the name ``ABC`` rebound to a module's class
    "rebound": "import types\nfrom abc import ABC\n\nABC = types.ModuleType\n\n\n"
    "class Retrying(ABC):\n",
    # ``ABC`` taken from elsewhere
    "other-module": "from types import ModuleType as ABC\n\n\nclass Retrying(ABC):\n",
    # another metaclass may make anything
    "metaclass": "from abc import ABC, ABCMeta\n\n\nclass Meta(ABCMeta):\n    pass\n\n\n"
    "class Retrying(ABC, metaclass=Meta):\n",
    # a second base
    "module-base": "import types\nfrom abc import ABC\n\n\n"
    "class Retrying(ABC, types.ModuleType):\n",
}


@pytest.mark.parametrize("header", _ABC_LOOKALIKES.values(), ids=_ABC_LOOKALIKES.keys())
def test_an_abc_lookalike_filled_still_opens(project: pytest.Pytester, header: str) -> None:
    edit(project, "_impl.py", "    return os.sep\n", "    return os.sep\n\n\n" + header + _SETSTATE)
    edit(project, "_impl.py", "(sys.platform, LABEL)", "(sys.platform, str(LABEL))")
    assert run(project) == {"test_separator", "test_module", "test_kind"}
    edit(project, "test_util.py", *_ADDED_IMPORTS)
    assert run(project) == {"test_separator", "test_module"}
