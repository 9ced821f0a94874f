"""A real code-server on 127.0.0.1 with the packaged extension, for the VS Code tests.

Throwaway profile and workspace per test (code-server autosaves and remembers state); auth,
telemetry and update checks off; the Chat panel hidden (it takes focus); the whole process
group stopped at the end (file watchers outlive the main process).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .tools import EDITORS_DIR, chromium, code_server, missing, node24, vsix

HERE = Path(__file__).resolve().parent

# User settings of the throwaway profile.
BASE_SETTINGS: dict[str, Any] = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.welcomePage.walkthroughs.openOnInstall": False,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "extensions.ignoreRecommendations": True,
    "chat.disableAIFeatures": True,
    "chat.commandCenter.enabled": False,
    "files.autoSave": "off",
    "git.enabled": False,
    "editor.minimap.enabled": False,
    "editor.accessibilitySupport": "off",
}


@dataclass
class CodeServer:
    url: str
    workspace: Path
    artifacts: Path
    log: Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def requirements() -> tuple[str, str, str, Path]:
    """Node 24, code-server, chromium and the vsix, or skip/fail saying which is missing."""
    node, server, browser, package = node24(), code_server(), chromium(), vsix()
    if node is None:
        missing(f"Node 24 is not installed in {EDITORS_DIR}/node24")
    if server is None:
        missing(f"code-server is not installed in {EDITORS_DIR}/code-server")
    if browser is None:
        missing("Debian's chromium is not installed")
    if package is None:
        missing("vscode-client/reks.vsix is not built (npm run package)")
    assert node and server and browser and package
    return node, server, browser, package


@contextmanager
def running_code_server(
    tmp: Path, workspace: Path, settings: dict[str, Any], artifacts: Path
) -> Iterator[CodeServer]:
    node, server, _browser, package = requirements()
    profile = tmp / "profile"
    extensions = tmp / "extensions"
    (profile / "User").mkdir(parents=True)
    extensions.mkdir()
    (profile / "User" / "settings.json").write_text(
        json.dumps({**BASE_SETTINGS, **settings}, indent=2), encoding="utf-8"
    )
    config = tmp / "code-server.yaml"
    config.write_text("auth: none\ncert: false\n", encoding="utf-8")
    common = [
        node,
        server,
        "--config",
        str(config),
        "--user-data-dir",
        str(profile),
        "--extensions-dir",
        str(extensions),
    ]
    env = {**os.environ, "HOME": str(tmp / "home")}
    (tmp / "home").mkdir()
    subprocess.run(
        [*common, "--install-extension", str(package)],
        check=True,
        capture_output=True,
        env=env,
        timeout=120,
    )
    port = _free_port()
    log = artifacts / "code-server.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                *common,
                "--bind-addr",
                f"127.0.0.1:{port}",
                "--auth",
                "none",
                "--disable-telemetry",
                "--disable-update-check",
                "--disable-workspace-trust",
                "--disable-getting-started-override",
                "--disable-proxy",
                str(workspace),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=workspace,
            start_new_session=True,  # own process group: stop the watchers with it
        )
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "healthz", timeout=2):
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"code-server did not start: {log.read_text()[-2000:]}"
                    ) from None
                time.sleep(0.3)
        yield CodeServer(f"{url}?folder={workspace}", workspace, artifacts, log)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def drive(cs: CodeServer, scenario: str, tmp: Path, timeout: float = 240, **fields: Any) -> dict:
    """Run the playwright driver for ``scenario``; its JSON result."""
    node, _server, browser, _package = requirements()
    result = tmp / f"driver-{scenario}.json"
    config = tmp / f"driver-{scenario}-config.json"
    config.write_text(
        json.dumps(
            {
                "playwright": str(EDITORS_DIR / "code-server"),
                "chromium": browser,
                "url": cs.url,
                "artifacts": str(cs.artifacts),
                "scenario": scenario,
                "result": str(result),
                **fields,
            }
        ),
        encoding="utf-8",
    )
    proc = subprocess.run(
        [node, str(HERE / "vscode_driver.mjs"), str(config)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if not result.exists():
        raise AssertionError(f"driver wrote no result: {proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    data: dict = json.loads(result.read_text())
    data["driver_log"] = proc.stderr[-5000:]
    return data
