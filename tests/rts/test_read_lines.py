"""A function that spells a read of code or docstrings (``inspect.signature``, ``__doc__``)
in a branch a test never took has not shown that test any function's body or docstring: the
read counts only when a line spelling it ran in the test (sys.monitoring LINE events on
Python 3.12+; the profile hook of 3.10/3.11 counts it whenever the function ran). Real
pytest sessions: tomlkit's ``item()`` reads signatures only of registered custom encoders,
and every test converting an int depended on every body whose header it reached."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

LINES_SEEN = sys.version_info >= (3, 12)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "convert.py",
        """
        import inspect

        ENCODERS = []


        def item(value, verbose=False):
            if isinstance(value, int):
                return value
            for encoder in ENCODERS:
                if verbose:
                    print(encoder.__doc__)
                if [p for p in inspect.signature(encoder).parameters.values() if p.default]:
                    return encoder(value)
            raise TypeError(value)


        class Parser:
            def parse_list(self, text, sep=","):
                "Split a list."
                return text.split(sep)
        """,
    )
    write(
        pytester,
        "test_convert_case.py",
        """
        from convert import ENCODERS, Parser, item


        def test_int():
            assert item(3) == 3 and Parser.parse_list


        def test_encoder():
            ENCODERS.append(Parser().parse_list)
            try:
                assert item("a,b") == ["a", "b"]
            finally:
                ENCODERS.clear()


        def test_verbose():
            ENCODERS.append(Parser().parse_list)
            try:
                assert item("a,b", verbose=True) == ["a", "b"]
            finally:
                ENCODERS.clear()
        """,
    )
    assert run(pytester) == {"test_int", "test_encoder", "test_verbose"}
    return pytester


def test_a_signature_read_in_a_branch_not_taken_shows_no_body(project: pytest.Pytester) -> None:
    # A changed default is the body's: the tests whose run read the signature see it;
    # test_int reached the method's header only.
    edit(project, "convert.py", 'sep=","', 'sep="," ""')
    expected = {"test_encoder", "test_verbose"}
    assert run(project) == (expected if LINES_SEEN else expected | {"test_int"})


def test_a_docstring_read_in_a_branch_not_taken_shows_no_docstring(
    project: pytest.Pytester,
) -> None:
    edit(project, "convert.py", '"Split a list."', '"Split a list at sep."')
    # test_encoder reads signatures (source text: docstrings too), test_verbose __doc__.
    expected = {"test_encoder", "test_verbose"}
    assert run(project) == (expected if LINES_SEEN else expected | {"test_int"})


def test_a_project_function_named_signature_reads_no_code(pytester: pytest.Pytester) -> None:
    """jmespath's ``@signature(...)`` decorator is its own function, not ``inspect``'s: a
    class body applying it read no signature, and its importers no body."""
    write(
        pytester,
        "functions.py",
        """
        def signature(*arguments):
            def record(func):
                func.signature = arguments
                return func
            return record


        class Registry(type):
            pass


        class Functions(metaclass=Registry):
            @signature("number")
            def abs(self, value):
                return abs(value)


        def name():
            return "functions"
        """,
    )
    write(
        pytester,
        "test_functions.py",
        """
        from functions import Functions, name


        def test_abs():
            assert Functions().abs(-1) == 1


        def test_name():
            assert name() == "functions" and Functions.abs
        """,
    )
    assert run(pytester) == {"test_abs", "test_name"}
    edit(pytester, "functions.py", "return abs(value)", "return value if value > 0 else -value")
    assert run(pytester) == {"test_abs"}
