"""A comment edit that moves no line reruns only the tests that read source text: a test
reading line numbers alone (an exception's ``lineno``, a traceback's ``tb_lineno``, a
frame's ``f_lineno``) depends on where code sits, not on the text of comments
(``rts.layout_unit``: the places twins; ``rts.position_units``), and a test listing the
session's modules sees no changed object (``rts.comment_changes``). Tests reading source
text (``linecache``, a formatted traceback, a doctest) and tests whose lines moved still
run. Real pytest sessions on a temporary project."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

PARSER = """
import sys


class DecodeError(ValueError):
    def __init__(self, msg, doc, pos):
        lineno = doc.count("\\n", 0, pos) + 1
        super().__init__(f"{msg} (line {lineno})")
        self.lineno = lineno


def loads(doc):  # noqa: C901
    # parse one key per line
    out = {}
    for number, line in enumerate(doc.splitlines()):
        key, sep, value = line.partition("=")
        if not sep:
            raise DecodeError("no value", doc, doc.index(line))  # bad line
        out[key.strip()] = value.strip()
    return out


def here():
    return sys._getframe().f_lineno  # where am I
"""

READERS = """
import linecache
import traceback

import parser


def test_error_line():
    try:
        parser.loads("a = 1\\nb")
    except parser.DecodeError as e:
        assert e.lineno == 2


def test_traceback_line():
    try:
        parser.loads("b")
    except parser.DecodeError as e:
        assert e.__traceback__.tb_next.tb_lineno == 17


def test_frame_line():
    assert parser.here() == 23


def test_plain():
    assert parser.loads("a = 1") == {"a": "1"}
"""

NUMBER_READERS = {"test_error_line", "test_traceback_line", "test_frame_line"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "parser.py", PARSER)
    write(pytester, "test_readers.py", READERS)
    assert run(pytester) == {*NUMBER_READERS, "test_plain"}
    return pytester


def test_a_noqa_dropped_off_a_def_line_selects_no_reader_of_line_numbers(
    project: pytest.Pytester,
) -> None:
    # Precision (tomli 871f2c1): the ``def`` line keeps its place, only its comment went.
    edit(project, "parser.py", "def loads(doc):  # noqa: C901", "def loads(doc):")
    assert ran_and_failed(project) == (set(), set())


def test_comment_typos_select_no_reader_of_line_numbers(project: pytest.Pytester) -> None:
    # Precision: comments inside the functions the readers ran, on their own lines and
    # after code, on the very line read.
    edit(project, "parser.py", "# parse one key", "# parse a key")
    edit(project, "parser.py", "# bad line", "# a bad line")
    edit(project, "parser.py", "# where am I", "# where are we")
    assert ran_and_failed(project) == (set(), set())


def test_a_comment_line_added_above_a_raise_selects_the_readers_of_its_line(
    project: pytest.Pytester,
) -> None:
    # Guard: a comment on a line of its own moves the ``raise`` and the ``here`` below it.
    edit(project, "parser.py", "if not sep:\n", "if not sep:\n            # no '='\n")
    ran, failed = ran_and_failed(project)
    assert ran >= failed == {"test_traceback_line", "test_frame_line"}
    assert ran <= NUMBER_READERS


@pytest.mark.parametrize(
    "reader",
    [
        "linecache.checkcache()  # one process for every session here\n"
        "    try:\n        parser.loads('b')\n    except parser.DecodeError as e:\n"
        "        tb = e.__traceback__.tb_next\n"
        "        line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno)\n"
        "        assert '# bad line' in line",
        "linecache.checkcache()\n"
        "    try:\n        parser.loads('b')\n    except parser.DecodeError:\n"
        "        assert '# bad line' in traceback.format_exc()",
    ],
    ids=["linecache", "format_exc"],
)
def test_a_comment_typo_selects_the_reader_of_its_text(
    pytester: pytest.Pytester, reader: str
) -> None:
    # Guard: the text of the line shows the comment.
    write(pytester, "parser.py", PARSER)
    body = READERS + f"\n\ndef test_text():\n    {reader}\n"
    write(pytester, "test_readers.py", body)
    assert run(pytester) == {*NUMBER_READERS, "test_plain", "test_text"}
    edit(pytester, "parser.py", "# bad line", "# a wrong line")
    assert ran_and_failed(pytester) == ({"test_text"}, {"test_text"})


def test_a_doctest_directive_dropped_selects_the_doctest(pytester: pytest.Pytester) -> None:
    # Guard: a "comment" inside a docstring is its text, which the doctest runs.
    write(
        pytester,
        "calc.py",
        '''
        def half(n):
            """Half of ``n``.

            >>> half(3)  # doctest: +SKIP
            1
            """
            return n / 2  # true division
        ''',
    )
    assert run(pytester, "--doctest-modules", "calc.py") == {"calc.half"}
    edit(pytester, "calc.py", "  # doctest: +SKIP", "")
    edit(pytester, "calc.py", "# true division", "# division")
    ran, failed = ran_and_failed(pytester, "--doctest-modules", "calc.py")
    assert ran == failed == {"calc.half"}


LISTED = """
import sys

import notes


def test_listed():
    assert "notes" in [name for name in sys.modules]
"""


@pytest.fixture
def listing(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "notes.py", "# first note\ndef note():\n    return 1  # one\n")
    write(pytester, "test_a_imports.py", "import notes\n\n\ndef test_note():\n    assert notes")
    write(
        pytester,
        "test_b_lists.py",
        """
        import linecache
        import sys


        def _listed_notes():
            return [m for name, m in sys.modules.items() if name == "notes"][0]


        def test_listed_text():
            linecache.checkcache()  # one process for every session here
            text = "".join(linecache.getlines(_listed_notes().__file__))
            assert "# one" in text


        def test_listed_place():
            assert _listed_notes().note.__code__.co_firstlineno == 2


        def test_listed_names():
            assert "notes" in [name for name, _ in sys.modules.items()]
        """,
    )
    tests = {"test_note", "test_listed_text", "test_listed_place", "test_listed_names"}
    assert run(pytester) == tests
    return pytester


def test_a_comment_typo_selects_no_test_listing_modules_without_reading_text(
    listing: pytest.Pytester,
) -> None:
    # Precision (toolz 19edc08): no object of the session changed; the test reading
    # source text through the listing still runs, and fails. (The one reading a code
    # object runs too: a told code read shows its function's own lines unit,
    # ``rts.code_read_units``.)
    edit(listing, "notes.py", "# one", "# uno")
    ran, failed = ran_and_failed(listing)
    assert "test_listed_names" not in ran
    assert "test_listed_text" in ran
    assert failed == {"test_listed_text"}


def test_a_comment_typo_left_unseen_reruns_no_listing_test_at_the_next_run(
    listing: pytest.Pytester,
) -> None:
    # Precision: the run that proved the listing tests unaffected by the typo synced
    # ``notes.py`` and marked them stale all the same, so the next run, with nothing
    # changed, reran them (the text reader failed at the typo: it reruns as any failed
    # test does).
    edit(listing, "notes.py", "# one", "# uno")
    assert "test_listed_names" not in ran_and_failed(listing)[0]
    assert run(listing) == {"test_listed_text"}


def test_a_line_added_while_the_listing_tests_are_left_out_reruns_them_next(
    listing: pytest.Pytester,
) -> None:
    # Guard: a run given only the other file syncs ``notes.py``'s moved line without
    # running the listing tests; the next run reruns them, and the place reader fails.
    edit(listing, "notes.py", "# first note\n", "# first note\n# second note\n")
    assert run(listing, "test_a_imports.py") == set()
    ran, failed = ran_and_failed(listing)
    assert ran >= {"test_listed_text", "test_listed_place", "test_listed_names"}
    assert failed == {"test_listed_place"}


def test_a_comment_typo_then_a_line_added_reruns_the_listing_tests(
    listing: pytest.Pytester,
) -> None:
    # Guard: the typo's proof covers that change only; a moved line after it selects them.
    edit(listing, "notes.py", "# one", "# uno")
    ran_and_failed(listing)
    edit(listing, "notes.py", "# first note\n", "# first note\n# second note\n")
    ran, failed = ran_and_failed(listing)
    assert ran >= {"test_listed_place", "test_listed_names"}
    assert failed == {"test_listed_place", "test_listed_text"}


def test_a_line_added_selects_the_tests_listing_modules(listing: pytest.Pytester) -> None:
    # Guard: a comment on a line of its own moves ``note``: every listing test runs.
    edit(listing, "notes.py", "# first note\n", "# first note\n# second note\n")
    ran, failed = ran_and_failed(listing)
    assert ran >= {"test_listed_text", "test_listed_place", "test_listed_names"}
    assert failed == {"test_listed_place"}


def test_a_comment_typo_selects_a_test_reading_the_file_by_name(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "parser.py", PARSER)
    reader = (
        "linecache.checkcache()\n    assert '# bad line' in linecache.getlines(parser.__file__)[16]"
    )
    write(pytester, "test_readers.py", READERS + f"\n\ndef test_text():\n    {reader}\n")
    assert run(pytester) == {*NUMBER_READERS, "test_plain", "test_text"}
    edit(pytester, "parser.py", "# bad line", "# a wrong line")
    assert ran_and_failed(pytester) == ({"test_text"}, {"test_text"})
