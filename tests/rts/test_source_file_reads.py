"""A test reading a project module's source file by its name (``open``, ``Path.read_text``,
``linecache.getline(s)`` called from the test's own code) sees the whole text, whatever code
of it ran: a comment typo or a rename in a function it never called changes what it reads.
It depends on the file's ``FILE`` unit (``rts.source_file_reads``). Imports (which open a
``.py`` too), and a library reading lines of the code that ran (``inspect``, ``traceback``),
keep the narrower units. Real pytest sessions on a temporary project."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

TEXT = """
def first():
    return 1


def second():
    # the second one
    value = 2
    return value
"""

TESTS = """
import linecache
import pathlib

import text


def test_calls():
    assert text.first() == 1


def test_lazy_import():
    import later

    assert later.LATE == 3


def test_read():
    read = {reader}
    assert "# the second one" in read and "value = 2" in read
"""

READERS = {
    "linecache": 'linecache.checkcache() or "".join(linecache.getlines(text.__file__))',
    "getline": (
        "linecache.checkcache() or "
        "linecache.getline(text.__file__, 6) + linecache.getline(text.__file__, 7)"
    ),
    "open": "open(text.__file__).read()",
    "read_text": "pathlib.Path(text.__file__).read_text()",
}


@pytest.fixture(params=sorted(READERS))
def project(request: pytest.FixtureRequest, pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "text.py", TEXT)
    write(pytester, "later.py", "# one late module\nLATE = 3\n")
    write(pytester, "test_reading.py", TESTS.replace("{reader}", READERS[request.param]))
    assert run(pytester) == {"test_calls", "test_lazy_import", "test_read"}
    return pytester


def test_a_comment_typo_selects_the_test_reading_the_file(project: pytest.Pytester) -> None:
    edit(project, "text.py", "# the second one", "# the 2nd one")
    assert ran_and_failed(project) == ({"test_read"}, {"test_read"})


def test_a_local_renamed_in_a_function_not_run_selects_the_reader(
    project: pytest.Pytester,
) -> None:
    edit(project, "text.py", "value = 2\n    return value", "amount = 2\n    return amount")
    assert ran_and_failed(project) == ({"test_read"}, {"test_read"})


def test_a_module_imported_in_a_test_is_no_text_read(project: pytest.Pytester) -> None:
    # Precision: the import opened later.py; a comment typo there changes nothing it sees.
    edit(project, "later.py", "# one late module", "# one later module")
    assert ran_and_failed(project) == (set(), set())


SHAPES = """
class Shape:
    def area(self):
        # the area
        return 0

    def name(self):
        return "shape"
"""


@pytest.mark.parametrize("edited", [("# the area", "# its area"), ('"shape"', '"shapes"')])
@pytest.mark.parametrize("of", ["shapes", "shapes.Shape"])
def test_the_source_of_a_module_or_class_shows_code_not_run(
    pytester: pytest.Pytester, of: str, edited: tuple[str, str]
) -> None:
    # ``inspect.getsource`` of a module or a class reads every method, called or not.
    write(pytester, "shapes.py", SHAPES)
    source = f"inspect.getsource({of})"
    reader = f"linecache.checkcache()\n    assert {edited[0]!r} in {source}"
    test = (
        f"import inspect\nimport linecache\n\nimport shapes\n\n\ndef test_source():\n    {reader}\n"
    )
    write(pytester, "test_shape_source.py", test)
    assert run(pytester) == {"test_source"}
    edit(pytester, "shapes.py", *edited)
    assert ran_and_failed(pytester) == ({"test_source"}, {"test_source"})
