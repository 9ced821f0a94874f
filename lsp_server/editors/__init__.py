"""Editor support files shipped with the package: the Neovim Lua module and the VS Code
extension's location. ``reks editor neovim`` prints the Lua module."""

from __future__ import annotations

from importlib import resources

NEOVIM_MODULE = "reks.lua"


def neovim_module() -> str:
    """Text of the Lua module for Neovim's built-in LSP client."""
    return resources.files(__name__).joinpath(NEOVIM_MODULE).read_text(encoding="utf-8")
