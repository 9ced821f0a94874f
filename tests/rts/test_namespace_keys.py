"""The constant keys of a dict built in a function and handed to ``type(name, bases, dict)``
bind members of the class made there: they look no name up. Counted as name reads, a method
of that name added to any class of a module the test imports selected every importer
(structlog's ``_make_filtering_bound_logger`` fills ``meths["get_effective_level"]``).
A dict that is not a fresh display (a copy of a namespace) is read by its keys: those stay
name reads. Real pytest sessions."""

from __future__ import annotations

import pytest

from lsp_server.rts.select import select_affected_tests
from lsp_server.rts.store import DependencyStore

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_FACTORY = """
class Base:
    def run(self):
        return "base"


def make(level):
    def info(self):
        return level

    methods = {"info": info}
    methods["debug"] = lambda self: level + 1
    methods["warn"] = methods["info"]
    return type("Made", (Base,), methods)


Made = make(1)
"""

# The copy of a namespace is read by key: a member ``debug`` of ``Other`` makes it raise.
_COPY = """
from other import Other


def make():
    members = dict(vars(Other))
    try:
        members["debug"]
    except KeyError:
        members["debug"] = lambda self: 3
        return type("Copied", (object,), members)
    raise TypeError("debug is taken")


Copied = make()
"""

# A fresh display handed to something else than ``type``: its keys are looked up as names.
_HANDED_ON = """
import operator

from other import Other


def make():
    members = {"ping": None}
    members["debug"] = None
    try:
        operator.attrgetter(*members)(Other)
    except AttributeError:
        return type("Copied", (object,), members)
    raise TypeError("debug is taken")


Copied = make()
"""


def _project(pytester: pytest.Pytester, factory: str, use: str) -> pytest.Pytester:
    write(pytester, "factory.py", factory)
    write(
        pytester,
        "other.py",
        """
        class Other:
            def ping(self):
                return 1
        """,
    )
    write(
        pytester,
        "test_made.py",
        """
        import factory
        from other import Other


        def test_ping():
            assert Other().ping() == 1


        def test_made():
            assert USE
        """.replace("USE", use),
    )
    assert run(pytester) == {"test_ping", "test_made"}
    return pytester


def _add_debug_to_other(project: pytest.Pytester) -> None:
    edit(project, "other.py", "return 1\n", "return 1\n\n    def debug(self):\n        return 2\n")


def test_a_method_named_as_a_key_of_a_made_class_namespace_selects_no_importer(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, _FACTORY, "factory.Made().info() == 1")
    _add_debug_to_other(project)
    # Neither test reads ``debug``: the factory only binds it on the class it makes.
    assert run(project) == set()


@pytest.mark.parametrize("factory", [_COPY, _HANDED_ON], ids=["copied", "handed-on"])
def test_a_key_of_a_dict_not_only_handed_to_type_still_selects(
    pytester: pytest.Pytester, factory: str
) -> None:
    project = _project(pytester, factory, "factory.Copied is not None")
    _add_debug_to_other(project)
    with DependencyStore(project.path) as store:
        selected = select_affected_tests(project.path, store).selected
    assert {nodeid.split("::", 1)[1] for nodeid in selected} == {"test_ping", "test_made"}
