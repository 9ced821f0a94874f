"""End to end over stdio: after "Analyse weak tests", saving an edited file re-analyses the
edited function alone and keeps the other functions' diagnostics published."""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_server.lsp.features.weak_tests import COMMAND
from tests.extreme.test_edit_reuse import DOC_SOURCE, DOC_TESTS
from tests.extreme.test_import_time import IMPORT_TIME_PROJECT
from tests.support.lsp import SERVER_COMMAND, open_session

CONFIG = ClientServerConfig(server_command=SERVER_COMMAND)

CALC = """\
def double(x):
    y = str(x * 2)
    return y


def triple(x):
    y = x * 3
    return y


def half(x):
    y = x // 2
    return y
"""

CALC_TESTS = """\
from calc import double, half, triple


def test_double():
    assert double(2) != ""


def test_triple():
    triple(2)


def test_half():
    assert half(4) == 2
"""

# double is partially tested: `return ""` is detected by test_double, `return "A"` is not.
# The edit breaks test_double, so its detection no longer stands: pseudo-tested.
EDITED = CALC.replace("str(x * 2)", "str(x * 2)[:0]")


async def _project_session(client: LanguageClient, root: Path, files: dict[str, str]) -> None:
    """A session over a new project at ``root`` with ``files``, one extreme worker."""
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    await open_session(client, root, options={"extreme": {"jobs": 1}})


def _project_client(name: str, files: dict[str, str]) -> Any:
    """A fixture: a session over a new project ``name`` with ``files``, shut down after."""

    @pytest_lsp.fixture(config=CONFIG, name=f"{name}_client")
    async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
        await _project_session(lsp_client, tmp_path / name, files)
        yield
        await lsp_client.shutdown_session()

    return client


calc_client = _project_client("calc", {"calc.py": CALC, "test_calc.py": CALC_TESTS})


def _codes(client: LanguageClient, source: Path) -> dict[str, str]:
    """Function name -> diagnostic code published for ``source``."""
    return {d.data["function"]: str(d.code) for d in client.diagnostics.get(source.as_uri(), [])}


async def _analyse_weak_tests(client: LanguageClient) -> None:
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=COMMAND, arguments=[])
    )


def _saved(client: LanguageClient, source: Path, text: str) -> None:
    """``source`` written with ``text`` and saved in the editor."""
    source.write_text(text)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(source.as_uri()))
    )


def _progress_titles(client: LanguageClient) -> list[str]:
    """The titles of the progress the server began."""
    return [
        r.title
        for reports in client.progress_reports.values()
        for r in reports
        if isinstance(r, types.WorkDoneProgressBegin)
    ]


def _reanalysis_messages(client: LanguageClient) -> list[str]:
    """The log messages of each step of a save's re-analysis, in order."""
    return [m.message for m in client.log_messages if "re-analysed" in m.message]


async def _log_saying(client: LanguageClient, text: str) -> str:
    for _ in range(600):
        for message in client.log_messages:
            if text in message.message:
                return message.message
        await asyncio.sleep(0.05)
    raise AssertionError([m.message for m in client.log_messages])


@pytest.mark.slow  # three analyses through the server, ~8-15 s
async def test_saving_an_edit_reanalyses_the_edited_function_alone(
    calc_client: LanguageClient, tmp_path: Path
) -> None:
    source = tmp_path / "calc" / "calc.py"
    await _analyse_weak_tests(calc_client)
    assert _codes(calc_client, source) == {"double": "partially-tested", "triple": "pseudo-tested"}

    source.write_text("# a line that moves every def\n" + EDITED)
    calc_client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(source.as_uri()))
    )
    message = await _log_saying(calc_client, "re-analysed")
    assert "re-analysed 1 edited function(s) of calc.py" in message
    titles = _progress_titles(calc_client)
    assert "reks: re-analysing 1 edited function(s)" in titles
    # double's verdict flipped; triple's stays published, on its new def line.
    assert _codes(calc_client, source) == {
        "double": "pseudo-tested",
        "triple": "pseudo-tested",
    }
    by_function = {d.data["function"]: d for d in calc_client.diagnostics[source.as_uri()]}
    assert by_function["triple"].range.start.line == 6

    # Renaming triple: the old name's diagnostic drops out, the new name is analysed.
    source.write_text(EDITED.replace("def triple(", "def treble(").replace("x * 3", "x * 3 + 0"))
    (tmp_path / "calc" / "test_calc.py").write_text(CALC_TESTS.replace("triple", "treble"))
    calc_client.log_messages.clear()
    calc_client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(source.as_uri()))
    )
    message = await _log_saying(calc_client, "re-analysed")
    assert "1 edited function(s)" in message and "(1 removed)" in message
    assert _codes(calc_client, source) == {"double": "pseudo-tested", "treble": "pseudo-tested"}


@pytest.mark.slow  # two analyses through the server, ~6-12 s
async def test_saving_a_test_that_checks_less_reanalyses_what_it_checked(
    calc_client: LanguageClient, tmp_path: Path
) -> None:
    source = tmp_path / "calc" / "calc.py"
    tests = tmp_path / "calc" / "test_calc.py"
    await _analyse_weak_tests(calc_client)
    assert "half" not in _codes(calc_client, source)  # test_half checks its result

    tests.write_text(CALC_TESTS.replace("assert half(4) == 2", "half(4)"))
    calc_client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(tests.as_uri()))
    )
    message = await _log_saying(calc_client, "re-analysed")
    assert "whose transformed runs reached the edit" in message
    assert _codes(calc_client, source)["half"] == "pseudo-tested"


# greet.py and its test: test_shout reads greet's docstring without calling greet.
GREET = DOC_SOURCE
GREET_TESTS = DOC_TESTS.replace("from m import", "from greet import")


greet_client = _project_client("greet", {"greet.py": GREET, "test_greet.py": GREET_TESTS})


@pytest.mark.slow  # two analyses through the server, ~6-12 s
async def test_saving_a_docstring_a_test_reads_reanalyses_what_that_test_checked(
    greet_client: LanguageClient, tmp_path: Path
) -> None:
    source = tmp_path / "greet" / "greet.py"
    await _analyse_weak_tests(greet_client)
    assert _codes(greet_client, source)["shout"] == "partially-tested"

    # No run executed greet; test_shout read its docstring, and now checks nothing.
    _saved(greet_client, source, GREET.replace("Say hello.", "Say hello (hidden)."))
    message = await _log_saying(greet_client, "re-analysed")
    assert "whose transformed runs reached the edit" in message
    assert _codes(greet_client, source)["shout"] == "pseudo-tested"


# sigs.py: exclude_keywords runs at import (EXCLUDED); accepts reads what it computed.
SIGS = IMPORT_TIME_PROJECT["sigs.py"]
SIGS_TESTS = IMPORT_TIME_PROJECT["test_sigs.py"]


sigs_client = _project_client(
    "sigs", {"sigs.py": textwrap.dedent(SIGS), "test_sigs.py": textwrap.dedent(SIGS_TESTS)}
)


@pytest.mark.slow  # two analyses through the server, ~8-15 s
async def test_a_save_publishes_the_edited_function_before_the_functions_the_edit_reached(
    sigs_client: LanguageClient, tmp_path: Path
) -> None:
    source = tmp_path / "sigs" / "sigs.py"
    await _analyse_weak_tests(sigs_client)
    _saved(
        sigs_client, source, source.read_text().replace("    return names", "    return names[:]")
    )
    reached = await _log_saying(sigs_client, "whose transformed runs reached the edit")
    assert "accepts" not in reached
    messages = _reanalysis_messages(sigs_client)
    # The developer waits for the edited function: its verdicts come first, on their own.
    assert messages[0].startswith("reks: re-analysed 1 edited function(s) of sigs.py"), messages
    assert "reached" not in messages[0], messages
    assert messages[1] == reached, messages
    titles = _progress_titles(sigs_client)
    assert "reks: re-analysing 1 edited function(s)" in titles, titles
    assert any(t.endswith("function(s) the edit reached") for t in titles), titles


@pytest.mark.slow  # two analyses through the server, ~8-15 s
async def test_a_save_of_an_ordinary_and_an_import_time_function_publishes_each_apart(
    sigs_client: LanguageClient, tmp_path: Path
) -> None:
    # exclude_keywords ran at import (its verdicts come from workers that import the
    # edited project anew), accepts did not: accepts' verdicts do not wait for those.
    source = tmp_path / "sigs" / "sigs.py"
    await _analyse_weak_tests(sigs_client)
    text = source.read_text().replace('("key", "default")', '("default", "key")')
    _saved(sigs_client, source, text.replace("return name not in", "return not name in"))
    await _log_saying(sigs_client, "(ran at import)")
    messages = _reanalysis_messages(sigs_client)
    assert messages[0].startswith("reks: re-analysed 1 edited function(s) of sigs.py"), messages
    assert "ran at import" not in messages[0], messages
    assert messages[1].startswith("reks: re-analysed 1 edited function(s) of sigs.py"), messages
    assert "(ran at import)" in messages[1], messages
