"""Line numbers that a log formatter spells for a test.

A log record holds the line of the code that logged it (``logging.Logger.findCaller`` reads
the caller's frame, library code no tracer sees), and a formatter whose format spells
``%(lineno)d`` puts it in the text: a test reading what its own handler wrote sees where
the project's code sits though its code reads no line-number name (``lookups.LINE_READS``).
Each record of a project file formatted that way counts, for the test running, as a read of
``lineno`` (``frame_namespaces.names_key``): it depends on the places of the code it ran
(``rts.position_units``), as a test reading ``record.lineno`` does.

pytest's own formatter (its log capture for reports and ``caplog``, whose format spells the
line too) formats every record of every test; the text only reaches a test that reads
``caplog.text`` (``names_read.reads_captured_log_text``). A formatter of another class than
``logging.Formatter`` counts whatever its format says: it may read the record's fields
itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from lsp_server.rts.frame_namespaces import names_key
from lsp_server.rts.read_lines import ReadLineWatch

_LINENO_READ = frozenset(["lineno"])


class LoggedLines:
    """Replaces ``logging.Formatter.format`` from its creation to the end of the session (a
    pytest plugin): a record of a project file formatted with its line is a read of
    ``lineno`` by the test running (none between tests: ``recorder._flush``)."""

    def __init__(self, read_lines: ReadLineWatch, is_project_file: Callable[[str], bool]) -> None:
        self._original = original = logging.Formatter.format
        key = names_key(_LINENO_READ)
        ran = read_lines.ran

        def format(formatter: logging.Formatter, record: logging.LogRecord) -> str:
            pathname = getattr(record, "pathname", None)
            if isinstance(pathname, str) and _spells_line(formatter) and is_project_file(pathname):
                ran.add(key)
            return original(formatter, record)

        logging.Formatter.format = format  # type: ignore[method-assign,assignment]

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self) -> None:
        logging.Formatter.format = self._original  # type: ignore[method-assign]


def register_logged_lines(
    config: pytest.Config, read_lines: ReadLineWatch, is_project_file: Callable[[str], bool]
) -> None:
    """Watch the session's formatted log records (``LoggedLines``)."""
    config.pluginmanager.register(LoggedLines(read_lines, is_project_file), "reks-logged-lines")


def _spells_line(formatter: Any) -> bool:
    cls = type(formatter)
    if cls.__module__ == "_pytest.logging":
        return False  # read through ``caplog.text``: ``names_read``
    if cls is not logging.Formatter:
        return True
    style = getattr(formatter, "_style", None)
    return "lineno" in str(getattr(style, "_fmt", ""))
