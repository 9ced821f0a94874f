"""What the language server's process loads before it can answer ``initialize``.

Process start to the first rename must stay under 2 s (issue 15, item 13): the server
imports only what document sync, code actions and rename need; the analyses (extreme,
factoring, field-exhaustive, the trust checks, pytest) are imported by the request that
uses them. (rope itself is still imported: the server's buffers live in a ``RopeWorkspace``.)
"""

from __future__ import annotations

import json
import subprocess
import sys

NOT_AT_START = (
    "_pytest",
    "libcst",
    "jedi",
    "lsp_server.extreme",
    "lsp_server.factoring",
    "lsp_server.fex",
    "lsp_server.astgen",
    "lsp_server.trust.checks",
    "lsp_server.refactor.semantics",
)


def modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_the_server_imports_no_analysis() -> None:
    loaded = modules_after(
        "from lsp_server.server import create_server\nserver = create_server()\n"
        "server.engine.close()"
    )
    early = sorted(m for m in loaded if any(m == p or m.startswith(p + ".") for p in NOT_AT_START))
    assert early == []
