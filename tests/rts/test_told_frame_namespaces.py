"""A frame's namespace read through a local holding the frame (typeguard's ``check_type``:
``frame = sys._getframe(1)``, then ``TypeCheckMemo(frame.f_globals, frame.f_locals)``) is
told as the line runs: the frame's globals are a project module's namespace, so the code
looks names up among that module's globals (as ``globals()`` does), not among every module
of the test. Other shapes (a chained read, a namespace that is no module's, a library
frame) still read any name. Python 3.12+ (sys.monitoring LINE events); before, the
function counts whole. Real pytest sessions."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

LINES_SEEN = sys.version_info >= (3, 12)

CHECKER = """
import sys


def check(value, expected):
    frame = sys._getframe(1)
    found = eval(expected, frame.f_globals, frame.f_locals)
    return isinstance(value, found)


def check_chained(value, expected):
    found = eval(expected, sys._getframe(1).f_globals)
    return isinstance(value, found)
"""


def _project(pytester: pytest.Pytester, tests: str) -> None:
    write(pytester, "checker.py", CHECKER)
    write(pytester, "other.py", "LIMIT = 3\n")
    write(
        pytester,
        "helpers.py",
        """
        import checker

        KIND = int


        def verify(value):
            return checker.check(value, "".join(["KI", "ND"]))


        def verify_int(value):
            return checker.check(value, "".join(["in", "t"]))
        """,
    )
    write(pytester, "test_check.py", tests)


def test_a_told_frame_reads_its_module_not_every_module(pytester: pytest.Pytester) -> None:
    _project(
        pytester,
        """
        import checker
        import other


        class Point:
            pass


        def test_point():
            assert checker.check(Point(), "Point")


        def test_limit():
            assert other.LIMIT == 3
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_point", "test_limit"}
    edit(pytester, "other.py", "LIMIT = 3", "LIMIT = 4")
    assert run(pytester) == ({"test_limit"} if LINES_SEEN else {"test_point", "test_limit"})


HELPER_TESTS = """
import helpers


def test_verify():
    assert helpers.verify(3)


def test_verify_int():
    assert helpers.verify_int(3)
"""


def test_a_changed_binding_of_the_frames_module_selects(pytester: pytest.Pytester) -> None:
    # The frame is the helper's, not the test's: its module's bindings are what it finds.
    _project(pytester, HELPER_TESTS)
    assert run(pytester, flag="--reks-all") == {"test_verify", "test_verify_int"}
    edit(pytester, "helpers.py", "KIND = int", "KIND = str")
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_verify"} <= ran


def test_a_new_binding_in_the_frames_module_selects(pytester: pytest.Pytester) -> None:
    # ``int`` was the builtin; a module global of that name now shadows it for the eval.
    _project(pytester, HELPER_TESTS)
    assert run(pytester, flag="--reks-all") == {"test_verify", "test_verify_int"}
    edit(pytester, "helpers.py", "KIND = int", "KIND = int\nint = str")
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_verify_int"} <= ran


def test_a_chained_frame_read_still_reads_any_name(pytester: pytest.Pytester) -> None:
    # ``sys._getframe(1).f_globals``: no local holds the frame, nothing is told.
    _project(
        pytester,
        """
        import checker
        import other


        def test_limit_kind():
            assert checker.check_chained(3, "".join(["int if other.LIM", "IT == 3 else str"]))
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_limit_kind"}
    edit(pytester, "other.py", "LIMIT = 3", "LIMIT = 4")
    assert ran_and_failed(pytester) == ({"test_limit_kind"}, {"test_limit_kind"})


def test_a_name_evaluated_from_a_computed_string_is_read(pytester: pytest.Pytester) -> None:
    # The told frame is the test module's; the string, made as the test runs, names
    # ``other.LIMIT`` through the module ``other`` found there: the evaluated code reads it.
    _project(
        pytester,
        """
        import checker
        import other


        def test_limit_read_by_eval():
            assert checker.check(3, "".join(["int if other.LIM", "IT == 3 else str"]))
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_limit_read_by_eval"}
    edit(pytester, "other.py", "LIMIT = 3", "LIMIT = 4")
    assert ran_and_failed(pytester) == ({"test_limit_read_by_eval"}, {"test_limit_read_by_eval"})


def test_a_namespace_of_no_module_still_reads_any_name(pytester: pytest.Pytester) -> None:
    # Code run by ``exec`` in a plain dict: its frame's globals are no module's namespace.
    _project(
        pytester,
        """
        import checker
        import other

        SOURCE = "def probe():\\n    return checker.check(3, 'int if other.LIMIT == 3 else str')\\n"


        def test_probe():
            namespace = {"checker": checker, "other": __import__("other")}
            exec(SOURCE, namespace)
            assert namespace["probe"]()
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_probe"}
    edit(pytester, "other.py", "LIMIT = 3", "LIMIT = 4")
    assert ran_and_failed(pytester) == ({"test_probe"}, {"test_probe"})


EVALUATOR = """
def evaluate(expression, namespace):
    return eval(expression, namespace)

"""


def test_globals_handed_to_eval_reads_the_names_evaluated(pytester: pytest.Pytester) -> None:
    # ``globals()`` reads the test module whole (``own_globals``); the string names
    # ``other.LIMIT`` through the module found there. On f18ebfd the test was not selected
    # and failed.
    write(pytester, "evaluator.py", EVALUATOR)
    write(pytester, "other.py", "LIMIT = 3\n")
    write(
        pytester,
        "test_eval.py",
        """
        import evaluator
        import other


        def test_limit():
            expression = ".".join(["other", "".join(["LIM", "IT"])])
            assert evaluator.evaluate(expression, globals()) == 3
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_limit"}
    edit(pytester, "other.py", "LIMIT = 3", "LIMIT = 4")
    assert ran_and_failed(pytester) == ({"test_limit"}, {"test_limit"})


def _formatting_test(pytester: pytest.Pytester, formatting: str) -> None:
    """``other.LIMIT`` read by the field of a template made as the test runs, through the
    test module's globals handed to ``formatted`` (whose body is ``formatting``)."""
    write(pytester, "evaluator.py", f"def formatted(template, namespace):\n    {formatting}\n")
    write(pytester, "other.py", "LIMIT = 3\n")
    write(
        pytester,
        "test_format.py",
        """
        import evaluator
        import other


        def test_limit():
            template = "{" + ".".join(["other", "".join(["LIM", "IT"])]) + "}"
            assert evaluator.formatted(template, globals()) == "3"
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_limit"}
    edit(pytester, "other.py", "LIMIT = 3", "LIMIT = 4")


@pytest.mark.parametrize(
    "formatting",
    ["return template.format_map(namespace)", "return str.format_map(template, namespace)"],
)
def test_globals_handed_to_format_map_reads_the_names_formatted(
    pytester: pytest.Pytester, formatting: str
) -> None:
    # ``format_map`` looks up the fields' names in the mapping, then their attributes: a
    # lookup by string (``lookups.DYNAMIC_NAMES``). On ba51e1d: not selected, and failed.
    _formatting_test(pytester, formatting)
    assert ran_and_failed(pytester) == ({"test_limit"}, {"test_limit"})


@pytest.mark.parametrize(
    "formatting",
    [
        "return template.format(**namespace)",
        "return str.format(template, **namespace)",
        # A constant template reading an attribute of a value (a strict xfail on e1ec010).
        'return "{other.LIMIT}".format(**namespace)',
    ],
)
def test_globals_unpacked_into_format_read_the_names_formatted(
    pytester: pytest.Pytester, formatting: str
) -> None:
    # ``str.format`` with a mapping unpacked looks names up by the template's fields, as
    # ``format_map`` does (``rts.unpacked_formats``). On e1ec010: not selected, and failed.
    _formatting_test(pytester, formatting)
    assert ran_and_failed(pytester) == ({"test_limit"}, {"test_limit"})


@pytest.mark.parametrize(
    "formatting",
    ['return "{name}".format(**namespace)', "return template.format(name=namespace['name'])"],
)
def test_format_with_plain_fields_or_spelled_keywords_reads_no_other_name(
    pytester: pytest.Pytester, formatting: str
) -> None:
    # Precision: a constant template of plain fields reads the mapping's keys alone; keywords
    # spelled one by one are read by the code passing them. ``other.LIMIT`` changed: only
    # its reader runs.
    write(pytester, "evaluator.py", f"def formatted(template, namespace):\n    {formatting}\n")
    write(pytester, "other.py", "LIMIT = 3\n")
    write(
        pytester,
        "test_format_plain.py",
        """
        import evaluator
        import other


        def test_name():
            assert evaluator.formatted("{name}", {"name": "x"}) == "x"


        def test_limit():
            assert other.LIMIT == 3
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_name", "test_limit"}
    edit(pytester, "other.py", "LIMIT = 3", "LIMIT = 4")
    assert ran_and_failed(pytester) == ({"test_limit"}, {"test_limit"})


def _library_runner(pytester: pytest.Pytester) -> None:
    """A module outside the project, on the path: a library calling what it is handed (as
    ``pytest.raises(E, check_type, value, hint)`` does)."""
    library = pytester.path.parent / f"{pytester.path.name}-library"
    library.mkdir()
    (library / "runner.py").write_text(
        "def call(function, *arguments, context=None):\n    return function(*arguments)\n"
    )
    pytester.syspathinsert(library)


def test_a_library_frame_reads_no_project_binding(pytester: pytest.Pytester) -> None:
    _library_runner(pytester)
    _project(
        pytester,
        """
        import checker
        import other
        import runner


        def test_called_by_library():
            assert runner.call(checker.check, 3, "int")


        def test_limit():
            assert other.LIMIT == 3
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_called_by_library", "test_limit"}
    edit(pytester, "other.py", "LIMIT = 3", "LIMIT = 4")
    expected = {"test_limit"} if LINES_SEEN else {"test_called_by_library", "test_limit"}
    assert run(pytester) == expected


def test_a_project_value_in_a_library_frame_is_read_by_the_names_evaluated(
    pytester: pytest.Pytester,
) -> None:
    # The library's local ``context`` holds the module ``other``: the evaluated string reads
    # ``LIMIT`` on it.
    _library_runner(pytester)
    _project(
        pytester,
        """
        import checker
        import other
        import runner


        def test_context_limit():
            expected = "".join(["int if context.LIM", "IT == 3 else str"])
            assert runner.call(checker.check, 3, expected, context=other)
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_context_limit"}
    edit(pytester, "other.py", "LIMIT = 3", "LIMIT = 4")
    assert ran_and_failed(pytester) == ({"test_context_limit"}, {"test_context_limit"})


def test_evaluated_code_calling_a_method_named_getattr_reads_no_other_name(
    pytester: pytest.Pytester,
) -> None:
    # jinja's template code calls ``environment.getattr(obj, "x")``: project code, traced.
    write(pytester, "evaluator.py", EVALUATOR)
    write(pytester, "other.py", "LIMIT = 3\n")
    write(
        pytester,
        "test_method.py",
        """
        import evaluator
        import other


        class Box:
            def getattr(self, name):
                return len(name)


        def test_box():
            assert evaluator.evaluate("box.getattr('xy')", {"box": Box()}) == 2


        def test_limit():
            assert other.LIMIT == 3
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_box", "test_limit"}
    edit(pytester, "other.py", "LIMIT = 3", "LIMIT = 4")
    assert run(pytester) == {"test_limit"}


def test_evaluated_code_calling_getattr_reads_any_name(pytester: pytest.Pytester) -> None:
    # The name looked up is data of the namespace: on f18ebfd the test was not selected.
    write(pytester, "evaluator.py", EVALUATOR)
    write(pytester, "other.py", "LIMIT = 3\n")
    write(
        pytester,
        "test_builtin.py",
        """
        import evaluator
        import other


        def test_limit():
            namespace = {"other": other, "name": "".join(["LIM", "IT"])}
            assert evaluator.evaluate("getattr(other, name)", namespace) == 3
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_limit"}
    edit(pytester, "other.py", "LIMIT = 3", "LIMIT = 4")
    assert ran_and_failed(pytester) == ({"test_limit"}, {"test_limit"})
