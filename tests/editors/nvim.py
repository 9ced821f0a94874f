"""Run a Lua script in a real headless Neovim and read back what it recorded."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from .tools import LUA_DIR, Neovim

# Prepended to every script: load reks.lua from the package, and `report(t)` writes the
# result table as JSON where the test reads it.
_PRELUDE = """
package.path = {lua_dir} .. "/?.lua;" .. package.path
local __out = {out}
function report(t)
  vim.fn.writefile({{ vim.fn.json_encode(t) }}, __out)
end
-- Progress lines, shown by the test when Neovim hangs or fails.
function trace(message)
  vim.fn.writefile({{ message }}, __out .. ".log", "a")
end
"""


def run_lua(
    nvim: Neovim,
    script: str,
    tmp_path: Path,
    *,
    cwd: Path | None = None,
    files: list[Path] | None = None,
    timeout: float = 60,
) -> dict[str, Any]:
    """Run ``script`` (Lua) in ``nvim --headless --clean``; it must call ``report{...}``.

    Errors in the script are caught and reported as ``{"error": ...}`` so that the test
    shows them instead of a hang.
    """
    out = tmp_path / f"result-{nvim.label}.json"
    out.unlink(missing_ok=True)
    body = script
    # Kept in tmp_path so a person can rerun it by hand. The runner loads it with dofile, so a
    # syntax error is reported like a runtime error, and always quits.
    body_file = tmp_path / f"script-{nvim.label}.lua"
    body_file.write_text(body, encoding="utf-8")
    runner = tmp_path / f"runner-{nvim.label}.lua"
    runner.write_text(
        _PRELUDE.format(lua_dir=json.dumps(str(LUA_DIR)), out=json.dumps(str(out)))
        + f"local ok, err = xpcall(function() dofile({json.dumps(str(body_file))}) end,"
        + " debug.traceback)\n"
        + "if not ok then report({ error = tostring(err) }) end\n"
        + "vim.cmd('qa!')\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "XDG_STATE_HOME": str(tmp_path / "xdg-state"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
    }
    args = [nvim.path, "--headless", "--clean", "-n", *(str(f) for f in files or [])]
    log = Path(f"{out}.log")
    log.unlink(missing_ok=True)
    try:
        proc = subprocess.run(
            [*args, "-c", f"luafile {runner}"],
            cwd=cwd or tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        steps = log.read_text() if log.exists() else "(no trace)"
        raise AssertionError(f"Neovim {nvim.label} hung after:\n{steps}") from exc
    if not out.exists():
        steps = log.read_text() if log.exists() else "(no trace)"
        raise AssertionError(
            f"Neovim {nvim.label} wrote no result (exit {proc.returncode}) after:\n{steps}\n"
            f"stdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-2000:]}"
        )
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    if "error" in result:
        raise AssertionError(f"Lua error in Neovim {nvim.label}: {result['error']}")
    return result
