"""The shared text helpers of ``lsp_server.project.text``."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from lsp_server.project.text import (
    identifier_at,
    identifier_span,
    line_starts,
    offset_of,
    parse_python,
    write_atomic,
)
from lsp_server.rts.units import source_units

INVALID_ESCAPE = 'PATTERN = "\\d+"\n'


def test_line_tables_and_identifiers() -> None:
    text = "ab\ncd_e f\n\nx"
    starts = line_starts(text)
    assert starts == [0, 3, 10, 11]
    assert offset_of(starts, 2, 1) == 4 and offset_of(starts, 4, 0) == 11
    assert identifier_span(text, 5) == (3, 7) and identifier_at(text, 5) == "cd_e"
    assert identifier_at(text, 9) == "f"  # just after a name counts, as editors place cursors
    assert identifier_at(text, 10) == ""
    assert identifier_at(text, 2) == "ab"


def test_analysis_parses_do_not_repeat_the_projects_warnings() -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        parse_python(INVALID_ESCAPE, "versioneer.py")
        source_units("versioneer.py", INVALID_ESCAPE)
    assert [str(w.message) for w in seen] == []


def test_write_atomic_leaves_no_temporary_file_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "out.json"
    write_atomic(target, "one")
    assert target.read_text() == "one"
    with pytest.raises(TypeError):
        write_atomic(target, 1)  # type: ignore[arg-type]
    assert target.read_text() == "one"
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.json"]
