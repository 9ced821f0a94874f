"""End to end: a refactoring the trust checks demote is not applied silently in the editor:
once applied, a warning names why REKS treats it as a hand edit."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import cast

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.conftest import make_client, start
from tests.lsp.test_refactoring import apply, rename
from tests.support.geometry import write_project

pytestmark = [pytest.mark.timeout(90), pytest.mark.slow]


def _shapes() -> str:
    """Known-failure shapes under which every rename is demoted."""
    shape = {"engine": "reks", "refactoring": "rename", "oracle": "output-changed"}
    data = {"version": 1, "engines": {"rope": ""}, "shapes": [{**shape, "features": []}]}
    return json.dumps(data)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    write_project(root)
    (root / ".known_failures.json").write_text(_shapes())
    return root


def _config(shapes: Path) -> ClientServerConfig:
    env = {**os.environ, "REKS_KNOWN_FAILURES": str(shapes)}
    return ClientServerConfig(
        server_command=[sys.executable, "-m", "lsp_server"], client_factory=make_client,
        server_env=env,
    )  # fmt: skip


async def test_a_demoted_rename_is_flagged_with_its_reason(project: Path) -> None:
    client = cast(LanguageClient, await _config(project / ".known_failures.json").start())
    try:
        await start(client, project, client_capabilities("visual-studio-code"))
        util = project / "geometry/util.py"
        apply(client, await rename(client, util, "def double", 4, "twice"))
        for _ in range(200):  # announced once the provenance and the verdict are known
            if any("hand edit" in m.message for m in client.messages):
                break
            await asyncio.sleep(0.05)
        warnings = [m for m in client.messages if "hand edit" in m.message]
        assert warnings and warnings[0].type == types.MessageType.Warning
        assert "rename `double` -> `twice` is treated as a hand edit" in warnings[0].message
        assert "known reks failure of rename" in warnings[0].message
        await client.shutdown_session()
    finally:
        await client.stop()
