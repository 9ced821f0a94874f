"""End to end: a rename whose string occurrences are uncertain. A client that supports
change annotations gets them as edits needing confirmation; one that does not gets the
certain edit only, and a message naming the places left out."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.support.geometry import text_edits
from tests.support.lsp import rename_at

pytestmark = [pytest.mark.timeout(90), pytest.mark.slow]

DISPATCH = """\
class Job:
    def run_step(self):
        return 1


def call(job, name):
    return getattr(job, name)()


print(Job().run_step(), call(Job(), "run_step"))
"""


def _created(client: LanguageClient, path: Path) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Created)]
        )
    )


async def test_string_occurrence_needs_confirmation(client: LanguageClient, project: Path) -> None:
    path = project / "dispatch.py"
    path.write_text(DISPATCH)
    _created(client, path)
    edit = await rename_at(client, path, "def run_step", 4, "execute")
    assert edit is not None
    edits = text_edits(edit)
    caps = client.capabilities.workspace
    supports = caps is not None and caps.workspace_edit.change_annotation_support is not None
    annotated = [e for e in edits if isinstance(e, types.AnnotatedTextEdit)]
    if supports:  # VS Code
        assert edit.change_annotations is not None
        (annotation,) = edit.change_annotations.values()
        assert annotation.needs_confirmation is True
        (string_edit,) = annotated
        assert string_edit.new_text == "execute"
        assert string_edit.range.start.line == 9  # the "run_step" in the print call
        assert {e.new_text for e in edits} == {"execute"}
        assert len(edits) == 3  # definition, call, and the string
    else:  # Neovim: the string is left out and the user is told where
        assert not annotated and edit.change_annotations is None
        assert len(edits) == 2
        assert all(e.range.start.line != 9 or e.range.start.character < 20 for e in edits)
        assert any(
            "uncertain" in m.message and "dispatch.py:10:" in m.message for m in client.messages
        )
