"""A fixture's parameters made with ``functools.partial`` of an imported class, in its
decorator (itsdangerous 4dffa19: ``params=(Serializer, partial(Serializer,
serializer=pickle))``): a change to the class's base selects the tests given those
parameters, not every test of the module and of the modules importing it
(``rts.partial_callees``). The class stopping being a class, by another binding, a
decorator or the import taking something else, still selects every test importing a
module that makes such a ``partial`` at import: that import fails."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

_SER = """
import typing as t

T = t.TypeVar("T", bound=t.Union[str, bytes])


class Serializer(t.Generic[T]):
    def __init__(self, secret_key, serializer=None):
        self.key = secret_key
        self.serializer = serializer

    def dumps(self, value):
        return repr(value) + self.key
"""

_SIGNER = """
class Signer:
    def sign(self, value):
        return value + ".sig"
"""

_PARAMS = """
import pickle
from functools import partial

import pytest

from pkg.ser import Serializer
from pkg.signer import Signer


class TestSerializer:
    @pytest.fixture(params=(Serializer, partial(Serializer, serializer=pickle)))
    def factory(self, request):
        return partial(request.param, secret_key="k")

    def test_dumps(self, factory):
        assert factory().dumps(1) == "1k"

    def test_held(self, factory):
        assert factory.keywords.get("serializer") in (None, pickle)


def test_sign():
    assert Signer().sign("a") == "a.sig"
"""

# Imports the class with its fixture (itsdangerous's ``test_timed.py``): collected again here.
_IMPORTING = """
from pkg.signer import Signer
from test_partial_params import TestSerializer


def test_other_sign():
    assert Signer().sign("b") == "b.sig"
"""

_USERS = {"TestSerializer::test_dumps[Serializer]", "TestSerializer::test_dumps[factory1]"}
_HELD = {"TestSerializer::test_held[Serializer]", "TestSerializer::test_held[factory1]"}


def _package(pytester: pytest.Pytester) -> None:
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/ser.py", _SER)
    write(pytester, "pkg/signer.py", _SIGNER)


@pytest.fixture
def params(pytester: pytest.Pytester) -> pytest.Pytester:
    _package(pytester)
    write(pytester, "test_partial_params.py", _PARAMS)
    write(pytester, "test_partial_importer.py", _IMPORTING)
    assert run(pytester) == {*_USERS, *_HELD, "test_sign", "test_other_sign"}
    return pytester


def test_a_base_changed_runs_the_tests_given_the_class(params: pytest.Pytester) -> None:
    edit(params, "pkg/ser.py", "bound=t.Union[str, bytes]", "bound=str | bytes")
    assert run(params) == {*_USERS, *_HELD}


def test_a_parameter_changed_runs_the_tests_given_it(params: pytest.Pytester) -> None:
    edit(params, "test_partial_params.py", "serializer=pickle)))", 'serializer="json")))')
    assert ran_and_failed(params) == ({*_USERS, *_HELD}, {"TestSerializer::test_held[factory1]"})


def test_a_method_changed_runs_the_tests_calling_it(params: pytest.Pytester) -> None:
    edit(params, "pkg/ser.py", "repr(value) + self.key", "self.key + repr(value)")
    assert ran_and_failed(params) == (_USERS, _USERS)


# The ``partial`` in a module the tests import as they run: its import failing fails them.
_LATE = """
import pickle
from functools import partial

from pkg.other import Other
from pkg.ser import Serializer

PICKLED = partial(Serializer, serializer=pickle)
"""

_LATE_TEST = """
def test_late_sign():
    import pkg.late
    from pkg.signer import Signer

    assert Signer().sign("c") == "c.sig"
"""


@pytest.fixture
def late(pytester: pytest.Pytester) -> pytest.Pytester:
    _package(pytester)
    write(pytester, "pkg/other.py", "Serializer = 3\nOther = 3\n")
    write(pytester, "pkg/late.py", _LATE)
    write(pytester, "test_late_partial.py", _LATE_TEST)
    assert run(pytester) == {"test_late_sign"}
    return pytester


def test_a_base_changed_runs_nothing_importing_the_partial_alone(late: pytest.Pytester) -> None:
    edit(late, "pkg/ser.py", "bound=t.Union[str, bytes]", "bound=str | bytes")
    assert run(late) == set()


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        ("pkg/ser.py", "return repr(value) + self.key\n", "return repr(value)\nSerializer = 3\n"),
        ("pkg/ser.py", "class Serializer(", "def gone(c):\n    return 3\n@gone\nclass Serializer("),
        ("pkg/ser.py", "class Serializer(", "Serializer = 3\nclass _Serializer("),
        ("pkg/late.py", "from pkg.ser import Serializer", "from pkg.other import Serializer"),
        ("pkg/late.py", "partial(Serializer,", "partial(Other,"),
    ],
    ids=["rebound", "decorated", "renamed", "imported-elsewhere", "another-callee"],
)
def test_a_callee_no_class_runs_every_test_importing_the_partial(
    late: pytest.Pytester, path: str, old: str, new: str
) -> None:
    edit(late, path, old, new)
    assert ran_and_failed(late) == ({"test_late_sign"}, {"test_late_sign"})


def test_a_callee_imported_through_a_package_keeps_its_whole_binding(
    late: pytest.Pytester,
) -> None:
    """``from pkg import Serializer``, the package importing it in turn: not told a
    class here, the import's module reads its whole binding, as any name."""
    write(late, "pkg/__init__.py", "from pkg.ser import Serializer\n")
    edit(late, "pkg/late.py", "from pkg.ser import Serializer", "from pkg import Serializer")
    assert run(late) == {"test_late_sign"}
    edit(late, "pkg/ser.py", "bound=t.Union[str, bytes]", "bound=str | bytes")
    assert run(late) == {"test_late_sign"}
