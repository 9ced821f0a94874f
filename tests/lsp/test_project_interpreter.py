"""Every feature that runs the project's code runs it in the project's interpreter (the
``python`` setting, else the project's virtualenv): one that cannot load reks is named in
a clear error by each of them, instead of one feature silently using the server's own."""

from __future__ import annotations

import subprocess
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_server.lsp.features.test_selection import COMMAND as RUN_AFFECTED
from lsp_server.lsp.features.weak_test_diagnosis import COMMAND as EXPLAIN
from lsp_server.lsp.features.weak_tests import COMMAND as ANALYSE
from tests.support.lsp import SERVER_COMMAND, copy_example, open_session

CONFIG = ClientServerConfig(server_command=SERVER_COMMAND)

# One server for the module: each command is refused before it runs anything.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A virtualenv without reks (and without pip: quick to make)."""
    venv = tmp_path_factory.mktemp("bare")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    return str(venv / "bin" / "python")


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(
    lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory, bare_python: str
):
    example = copy_example(tmp_path_factory.mktemp("example"))
    await open_session(lsp_client, example, options={"python": bare_python})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.parametrize("command", [RUN_AFFECTED, ANALYSE, EXPLAIN])
async def test_each_feature_runs_in_the_project_interpreter(
    client: LanguageClient, bare_python: str, command: str
) -> None:
    with pytest.raises(JsonRpcException, match="cannot load reks") as raised:
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=[])
        )
    assert bare_python in str(raised.value)
