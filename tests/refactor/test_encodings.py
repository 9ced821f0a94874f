"""Every file is read and written in its own encoding (PEP 263 coding line, UTF-8 BOM);
a file that is in no encoding Python accepts is skipped and reported, never fatal."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.model import FileEdit, RefactorRequest

USES = "from geometry.util import double\n"


def rename_double(engine: RefactorEngine, project: Path):
    """Rename ``double`` of ``geometry/util.py`` to ``twice``."""
    util = project / "geometry/util.py"
    offset = util.read_text().index("def double") + 4
    return engine.compute(RefactorRequest("rename", str(util), offset, None, {"new_name": "twice"}))


def test_a_file_not_in_utf8_without_a_coding_line_is_skipped_and_reported(
    engine: RefactorEngine, project: Path
) -> None:
    legacy = project / "geometry/legacy.py"
    legacy.write_bytes((USES + "NAME = 'caf\xe9'\nX = double(2)\n").encode("latin-1"))
    result = rename_double(engine, project)
    assert [s.path for s in result.skipped_files] == [str(legacy)]
    assert "UTF-8" in result.skipped_files[0].reason
    edited = {e.path for e in result.edits if isinstance(e, FileEdit)}
    assert str(project / "geometry/util.py") in edited and str(legacy) not in edited


def test_a_file_with_a_bom_is_renamed_and_keeps_its_bom(
    engine: RefactorEngine, project: Path
) -> None:
    marked = project / "geometry/marked.py"
    marked.write_bytes(b"\xef\xbb\xbf" + (USES + "X = double(2)\n").encode())
    result = rename_double(engine, project)
    assert result.skipped_files == []
    engine.apply(result, str(project))
    assert marked.read_bytes() == b"\xef\xbb\xbf" + (
        USES.replace("double", "twice") + "X = twice(2)\n"
    ).encode("utf-8")


LATIN1 = "# -*- coding: latin-1 -*-\n" + USES + "NAME = 'café'\nX = double(2)\n"


@pytest.mark.parametrize("open_in_editor", [False, True])
def test_a_latin1_file_is_renamed_and_written_back_in_latin1(
    engine: RefactorEngine, project: Path, open_in_editor: bool
) -> None:
    """On disk and as an editor buffer (text, which must not be read as UTF-8 bytes)."""
    legacy = project / "geometry/legacy.py"
    legacy.write_bytes(LATIN1.encode("latin-1"))
    if open_in_editor:
        engine.set_overlay(str(legacy), LATIN1)
    result = rename_double(engine, project)
    edit = next(e for e in result.edits if isinstance(e, FileEdit) and e.path == str(legacy))
    assert edit.new_text == LATIN1.replace("double", "twice")
    engine.apply(result, str(project))
    assert legacy.read_bytes() == LATIN1.replace("double", "twice").encode("latin-1")
