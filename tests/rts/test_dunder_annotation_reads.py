"""A class named only in a dunder's annotation (tenacity's ``RetryCallState.__init__(self,
retry_object: BaseRetrying, ...)``), on real pytest sessions. The class unit of
``RetryCallState`` read every name its dunders' headers read, annotations included, so
every test reaching ``RetryCallState`` depended on ``BaseRetrying``'s class unit: a
parameter added to ``BaseRetrying.__init__`` (tenacity 39eb157, cb320c4) selected every
test importing tenacity, though evaluating the annotation only stores the class in
``__annotations__``. Now those names are the class's ``FileUnits.noted``: their order
markers stay in its unit, and a test follows them only when it read signatures or code,
or when its modules hand the class to library code at import
(``BindingReads._close_noted``).

Precision: a parameter added to the annotated class's ``__init__`` selects its users and
the annotation's readers, not a test that only builds the class whose dunder names it
(failed on 6eda008).

Guards (each must select, and the test that sees the change fails at the child; all pass
on 6eda008): the annotated class moved below the annotating one or renamed (``NameError``
at import: every importer); tests reading the annotation (``get_type_hints``, the class's
signature: this one failed while only the class unit's reads were changed) and the
signature of the class it names; a base's ``__init_subclass__``, a project decorator and a
library handed the class at import reading it (the last failed without the hand-off); a
class two annotations away, read through both (``_close_noted``'s later rounds: it failed
with them cut off)."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, write

pytest_plugins = ["pytester"]

STATES = """
class Retrying:
    def __init__(self, wait=0):
        self.wait = wait


class CallState:
    def __init__(self, retry_object: Retrying, attempt: int = 1) -> None:
        self.retry_object = retry_object
        self.attempt = attempt
"""

# Each test imports ``states`` itself: when the import breaks, every selected test fails
# on its own and one left out shows.
TESTS = """
import inspect
import typing


def test_state():
    import states

    assert states.CallState(None).attempt == 1


def test_retrying():
    import states

    assert states.Retrying(wait=1).wait == 1


def test_hints():
    import states

    named = typing.get_type_hints(states.CallState.__init__)["retry_object"]
    assert list(inspect.signature(named).parameters) == ["wait"]


def test_signature():
    import states

    named = inspect.signature(states.CallState).parameters["retry_object"].annotation
    assert list(inspect.signature(named).parameters) == ["wait"]
"""

ALL = {"test_state", "test_retrying", "test_hints", "test_signature"}
RETRYING = "class Retrying:\n    def __init__(self, wait=0):\n        self.wait = wait\n\n\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "states.py", STATES)
    write(pytester, "test_states.py", TESTS)
    assert ran_and_failed(pytester) == (ALL, set())
    return pytester


def test_a_parameter_added_to_a_class_named_in_a_dunder_annotation_selects_its_users(
    project: pytest.Pytester,
) -> None:
    edit(project, "states.py", "(self, wait=0):", "(self, wait=0, scale=1):")
    readers = {"test_hints", "test_signature"}
    assert ran_and_failed(project) == ({"test_retrying", *readers}, readers)


def test_the_annotated_class_moved_below_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "states.py", RETRYING, "")
    edit(
        project, "states.py", "self.attempt = attempt\n", "self.attempt = attempt\n\n\n" + RETRYING
    )
    assert ran_and_failed(project) == (ALL, ALL)  # NameError at import


def test_the_annotated_class_renamed_selects_every_importer(project: pytest.Pytester) -> None:
    edit(project, "states.py", "class Retrying:", "class Retry:")
    assert ran_and_failed(project) == (ALL, ALL)  # NameError at import


HOOKED = """
import inspect
import typing


class Retrying:
    def __init__(self, wait=0):
        self.wait = wait


class Base:
    SIGNATURES = {}

    def __init_subclass__(cls):
        named = typing.get_type_hints(cls.__init__)["retry_object"]
        Base.SIGNATURES[cls.__name__] = list(inspect.signature(named).parameters)


class CallState(Base):
    def __init__(self, retry_object: Retrying) -> None:
        self.retry_object = retry_object
"""

HOOKED_TESTS = """
def test_signatures():
    import states

    assert states.Base.SIGNATURES == {"CallState": ["wait"]}
"""


def test_a_hook_reading_the_annotation_at_import_selects_its_readers(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "states.py", HOOKED)
    write(pytester, "test_states.py", HOOKED_TESTS)
    assert ran_and_failed(pytester) == ({"test_signatures"}, set())
    edit(pytester, "states.py", "(self, wait=0):", "(self, wait=0, scale=1):")
    assert ran_and_failed(pytester) == ({"test_signatures"}, {"test_signatures"})


DECORATED = """
import inspect
import typing

SIGNATURES = {}


def final(cls):
    named = typing.get_type_hints(cls.__init__)["retry_object"]
    SIGNATURES[cls.__name__] = list(inspect.signature(named).parameters)
    return cls


class Retrying:
    def __init__(self, wait=0):
        self.wait = wait


@final
class CallState:
    def __init__(self, retry_object: Retrying) -> None:
        self.retry_object = retry_object
"""


def test_a_decorator_reading_the_annotation_at_import_selects_its_readers(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "states.py", DECORATED)
    write(pytester, "test_states.py", HOOKED_TESTS.replace("states.Base.", "states."))
    assert ran_and_failed(pytester) == ({"test_signatures"}, set())
    edit(pytester, "states.py", "(self, wait=0):", "(self, wait=0, scale=1):")
    assert ran_and_failed(pytester) == ({"test_signatures"}, {"test_signatures"})


LIBRARY = """
import inspect
import typing


def describe(cls):
    named = typing.get_type_hints(cls.__init__)["retry_object"]
    return list(inspect.signature(named).parameters)
"""

HANDED = """
import annolib


class Retrying:
    def __init__(self, wait=0):
        self.wait = wait


class CallState:
    def __init__(self, retry_object: Retrying) -> None:
        self.retry_object = retry_object


DESCRIBED = annolib.describe(CallState)
"""

HANDED_TESTS = """
def test_described():
    import states

    assert states.DESCRIBED == ["wait"]
"""


def test_a_library_handed_the_class_at_import_selects_its_readers(
    pytester: pytest.Pytester,
) -> None:
    library = pytester.path.parent / f"{pytester.path.name}-library"
    library.mkdir()
    (library / "annolib.py").write_text(LIBRARY.lstrip("\n"))
    pytester.syspathinsert(library)
    write(pytester, "states.py", HANDED)
    write(pytester, "test_states.py", HANDED_TESTS)
    assert ran_and_failed(pytester) == ({"test_described"}, set())
    edit(pytester, "states.py", "(self, wait=0):", "(self, wait=0, scale=1):")
    assert ran_and_failed(pytester) == ({"test_described"}, {"test_described"})


CHAIN = """
class Leaf:
    def __init__(self, x=0):
        self.x = x


class Inner:
    def __init__(self, leaf: Leaf) -> None:
        self.leaf = leaf


class Outer:
    def __init__(self, inner: Inner) -> None:
        self.inner = inner
"""

CHAIN_TESTS = """
import inspect


def test_build():
    import chain

    assert chain.Outer(None).inner is None


def test_chain_signatures():
    import chain

    inner = inspect.signature(chain.Outer).parameters["inner"].annotation
    leaf = inspect.signature(inner).parameters["leaf"].annotation
    assert list(inspect.signature(leaf).parameters) == ["x"]
"""


def test_a_class_two_annotations_away_selects_the_test_reading_through_both(
    pytester: pytest.Pytester,
) -> None:
    """``Leaf`` is reached only through ``Inner``'s annotation, ``Inner`` only through
    ``Outer``'s; the test that only builds ``Outer`` reads no annotation (precision)."""
    write(pytester, "chain.py", CHAIN)
    write(pytester, "test_chain.py", CHAIN_TESTS)
    assert ran_and_failed(pytester) == ({"test_build", "test_chain_signatures"}, set())
    edit(pytester, "chain.py", "(self, x=0):", "(self, x=0, y=1):")
    assert ran_and_failed(pytester) == ({"test_chain_signatures"}, {"test_chain_signatures"})
