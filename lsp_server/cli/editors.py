"""``reks editor neovim|vscode``: what to install in an editor."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

_VSCODE_HELP = """\
reks for VS Code: build and install the extension from a clone of reks:

  cd vscode-client && npm ci && npm run package
  code --install-extension reks.vsix

It starts `python -m lsp_server` with the interpreter selected in the Python extension
(fallback: the reks.server.pythonPath setting, then python3). This interpreter has reks:
  {python} -m pip install reks
"""


def _neovim(args: argparse.Namespace) -> int:
    from lsp_server.editors import neovim_module

    text = neovim_module()
    if args.output is None:
        sys.stdout.write(text)
        return 0
    target = Path(args.output)
    if target.is_dir():
        target = target / "reks.lua"
    # Write beside the target, then rename: an interrupted run leaves the old file whole.
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(target)
    print(f"wrote {target}", file=sys.stderr)
    return 0


def _vscode(args: argparse.Namespace) -> int:
    sys.stdout.write(_VSCODE_HELP.format(python=sys.executable))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("editor", help="editor support: the Neovim module, VS Code set-up")
    editors = p.add_subparsers(dest="editor", metavar="EDITOR", required=True)
    nvim = editors.add_parser(
        "neovim",
        help="print the Lua module for Neovim's built-in LSP client",
        description="Print reks.lua (or write it with -o). Put it on 'runtimepath' "
        "(e.g. ~/.config/nvim/lua/reks.lua) and call require('reks').setup{} in init.lua.",
    )
    nvim.add_argument(
        "-o", "--output", metavar="PATH", help="write to PATH (a file or a folder) instead"
    )
    nvim.set_defaults(handler=_neovim)
    code = editors.add_parser("vscode", help="how to build and install the VS Code extension")
    code.set_defaults(handler=_vscode)
