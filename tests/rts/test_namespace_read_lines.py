"""A function handing on or keying an object's ``__dict__`` by a computed name (structlog's
``CallsiteParameterAdder.__call__``: ``record.__dict__[mapping.record_attribute]``, only for
a record from the standard library) looks up any name, but only where that line runs: on
Python 3.12+ a test whose run never took the branch does not depend on every binding of its
modules (sys.monitoring LINE events, as for a frame's namespace: ``rts.read_lines``; before
3.12 the function counts whole). Real pytest sessions."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

LINES_SEEN = sys.version_info >= (3, 12)

_ADDER = """
LIMIT = 3


def add(event, record=None, keys=()):
    if record is not None:
        for key in keys:
            event[key] = record.__dict__[key]
        return event
    event["limit"] = LIMIT
    return event


def getter(obj, key):
    return obj.__dict__.get(key)
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "adder.py", _ADDER)
    write(
        pytester,
        "test_adder.py",
        """
        import adder


        def test_plain():
            assert adder.add({}) == {"limit": 3}


        class Record:  # a project class: its instance may hold any name
            def __init__(self, name):
                self.name = name


        def test_record():
            record = Record(name="x")
            assert adder.add({}, record, ["name"]) == {"name": "x"}


        def test_getter():
            assert adder.getter(Record(name="x"), "name") == "x"
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_plain", "test_record", "test_getter"}
    return pytester


def test_a_namespace_keyed_by_a_computed_name_counts_only_where_its_line_ran(
    project: pytest.Pytester,
) -> None:
    edit(project, "adder.py", "LIMIT = 3", "LIMIT = 3\nOTHER = 4")
    # ``test_plain`` reads ``LIMIT``, unchanged, and ran no line reading a ``__dict__``.
    ran = {"test_record", "test_getter"}
    assert run(project) == (ran if LINES_SEEN else {"test_plain", *ran})


def test_a_changed_binding_read_where_the_line_did_not_run_still_selects(
    project: pytest.Pytester,
) -> None:
    edit(project, "adder.py", "LIMIT = 3", "LIMIT = 4")
    assert {"test_plain", "test_record"} <= run(project)
