"""A log record holds the line of the project code that logged it, and a handler's
formatter may spell it (``%(lineno)d``; pytest's own log format does): a test reading
formatted records (its own handler's output, ``caplog.text``) sees where that code sits,
though its code reads no line-number name. It depends on the places of the code it ran
(``rts.logged_lines``); a test logging without reading the formatted text does not.
Real pytest sessions on a temporary project."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

TALK = "import logging\n\n\ndef say():\n    logging.getLogger('t').warning('hi')\n"

TESTS = """
import io
import logging

import talk


def test_formatted():
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(lineno)d %(message)s"))
    logging.getLogger("t").addHandler(handler)
    try:
        talk.say()
    finally:
        logging.getLogger("t").removeHandler(handler)
    assert out.getvalue() == "5 hi\\n"


def test_caplog_text(caplog):
    talk.say()
    assert "talk.py:5 hi" in caplog.text


def test_caplog_messages(caplog):
    talk.say()
    assert caplog.messages == ["hi"]


def test_logs():
    talk.say()
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "talk.py", TALK)
    write(pytester, "test_speaking.py", TESTS)
    tests = {"test_formatted", "test_caplog_text", "test_caplog_messages", "test_logs"}
    assert run(pytester) == tests
    return pytester


def test_a_line_moved_selects_the_readers_of_formatted_records(project: pytest.Pytester) -> None:
    edit(project, "talk.py", "import logging\n", "import logging\n# a note\n")
    ran, failed = ran_and_failed(project)
    assert ran == failed == {"test_formatted", "test_caplog_text"}


def test_a_comment_typo_selects_no_reader_of_formatted_records(project: pytest.Pytester) -> None:
    # Precision: a record shows where code sits, not the text of its comments.
    edit(project, "talk.py", "warning('hi')\n", "warning('hi')  # say it\n")
    assert run(project) == set()
    edit(project, "talk.py", "# say it", "# tell it")
    assert ran_and_failed(project) == (set(), set())
