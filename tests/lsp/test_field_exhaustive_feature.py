"""The real server over stdio: a code lens on a class with ``rep_ok`` generates its
field-exhaustive tests, which then pass under pytest."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

import lsp_server
from lsp_server.lsp.features.field_exhaustive import GENERATE
from tests.support.lsp import SERVER_COMMAND, open_document, open_session

pytestmark = pytest.mark.timeout(180)

CONFIG = ClientServerConfig(server_command=SERVER_COMMAND)
SORTED_LIST = Path(lsp_server.__file__).parent / "examples" / "fex" / "sorted_list.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / "tests").mkdir(parents=True)
    shutil.copy(SORTED_LIST, root / "sorted_list.py")
    (root / "pyproject.toml").write_text("[tool.reks.fex]\nscope = 3\n")
    return root


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient, project: Path):
    await open_session(lsp_client, project)
    yield
    await lsp_client.shutdown_session()


async def test_the_lens_generates_a_suite_that_passes(
    client: LanguageClient, project: Path
) -> None:
    module = project / "sorted_list.py"
    open_document(client, module)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=module.as_uri()))
    )
    [lens] = lenses or []
    assert lens.command is not None
    assert lens.command.title == "Generate field-exhaustive tests (scope 3)"
    assert lens.command.command == GENERATE
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=GENERATE, arguments=lens.command.arguments)
    )
    written = Path(result["file"])
    assert written.parent == project / "tests" and written.exists()
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(written)],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-2000:]
    assert " passed" in run.stdout
