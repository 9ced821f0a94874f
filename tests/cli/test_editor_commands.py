"""``reks editor``: the README's commands work on a new user's machine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lsp_server.editors import neovim_module

_MAIN = "import sys; from lsp_server.cli import main; sys.exit(main(sys.argv[1:]))"


def _reks(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _MAIN, *args], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    "output,written",
    [
        ("home/.config/nvim/lua/", "home/.config/nvim/lua/reks.lua"),  # no nvim/ yet
        ("home/.config/nvim/lua", "home/.config/nvim/lua/reks.lua"),
        ("home/init/reks.lua", "home/init/reks.lua"),
    ],
)
def test_neovim_output_folder_is_created(tmp_path: Path, output: str, written: str) -> None:
    result = _reks(
        "editor", "neovim", "-o", str(tmp_path / output) + ("/" if output.endswith("/") else "")
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / written).read_text(encoding="utf-8") == neovim_module()
    assert not list(tmp_path.rglob("*.tmp"))


def test_neovim_output_beside_an_existing_nvim_folder(tmp_path: Path) -> None:
    (tmp_path / "nvim").mkdir()
    result = _reks("editor", "neovim", "-o", f"{tmp_path / 'nvim' / 'lua'}/")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "nvim" / "lua").is_dir()
    assert (tmp_path / "nvim" / "lua" / "reks.lua").read_text(encoding="utf-8") == neovim_module()


def test_vscode_hint_gives_a_command_that_works() -> None:
    result = _reks("editor", "vscode")
    assert result.returncode == 0
    assert "pip install reks\n" not in result.stdout  # reks is not on the package index
    clone = Path(__file__).resolve().parents[2]
    assert f"pip install -e {clone}" in result.stdout
